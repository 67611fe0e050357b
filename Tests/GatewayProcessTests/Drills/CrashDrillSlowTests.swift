import Foundation
import GRDB
import PostgresStores
import SQLiteStores
import Synchronization
import TestSupport
import Testing

/// `gateway serve --demo` on a SQLite file, killed with SIGKILL ten times under a mixed load
/// (SDSU registrations, drops and waitlists on a few small classes, sign-ups, saved schedules,
/// admin jobs, reads, grade polls and webhook deliveries: ``NotificationDrill``; the registrar's
/// signed seat deliveries and the texts they set off: ``RegistrarDrill``) and started
/// again on the same file each time. Whatever the server said
/// it did must be in the file afterwards; what it never answered may or may not be. Slow:
/// `make check-slow`.
@Suite("Drill Slow: kill -9 under load on SQLite", .serialized, .enabled(if: SlowSuites.enabled))
struct CrashDrillSlowTests {
    static let kills = SlowSuites.size(full: 10, trimmed: 3)
    static let students = 8
    static let password = "drill-pass-7"
    static let term = "2018-fall"

    /// What the model knows of one (student, class) pair, from acknowledged answers only.
    enum Seat: Sendable, Equatable { case absent, enrolled, waitlisted, unknown }

    /// The answers, counted; what was acknowledged, remembered.
    struct Tally: Sendable {
        var sent = 0, unanswered = 0, reads = 0
        var added = 0, dropped = 0, waitlisted = 0, unwaitlisted = 0, refused = 0
        var signUps: [String] = []
        var schedules: [(id: Int64, name: String)] = []
        var jobs: [Int64] = []
        /// Answers no drill request should ever get (a 500, an unexpected status).
        var unexpected: [String] = []
        var acknowledged: Int { added + dropped + waitlisted + unwaitlisted + signUps.count + schedules.count + jobs.count }
    }

    /// The ports the load sends to (one per instance; 0 while that instance doesn't listen):
    /// each request goes to one of those listening, picked at random, as a load balancer would.
    final class Target: Sendable {
        let ports: Mutex<[Int]>
        let stop = Atomic<Bool>(false)
        let tally = Mutex(Tally())

        init(instances: Int = 1) { ports = Mutex(Array(repeating: 0, count: instances)) }

        /// Instance `index` listens on `port` (0: it doesn't).
        func set(_ index: Int, port: Int) { ports.withLock { $0[index] = port } }

        /// A listening instance's port, or 0 when none listens.
        var port: Int { ports.withLock { $0.filter { $0 > 0 }.randomElement() ?? 0 } }

        /// Sends and counts: nil (no answer) is counted as unanswered.
        func send(_ method: String, _ path: String, body: String? = nil, token: String? = nil, headers: [String: String] = [:]) async -> Drill.Reply? {
            let port = self.port
            guard port > 0 else {
                try? await Task.sleep(for: .milliseconds(20))
                return nil
            }
            let reply = await Drill.send(port: port, method, path, body: body, token: token, headers: headers, timeout: 15)
            tally.withLock { tally in
                tally.sent += 1
                if reply == nil { tally.unanswered += 1 }
                if let reply, reply.status >= 500 || ![200, 201, 503].contains(reply.status) {
                    tally.unexpected.append("\(method) \(path.prefix(40)): \(reply.status) \(reply.body.prefix(160))")
                }
            }
            if reply == nil { try? await Task.sleep(for: .milliseconds(20)) }
            return reply
        }

        var running: Bool { !stop.load(ordering: .acquiring) }
    }

    static func redID(_ n: Int) -> String { String(format: "93%07d", n) }

    static func credentials(_ redID: String) -> String { "redid=\(redID)&password=\(password)" }

    static func serve(_ path: String, environment: [String: String] = [:]) async throws -> ServingGateway {
        try await Drill.offThread {
            try ServingGateway(
                arguments: [
                    "--demo", "--demo-passwords", "documented", "--database", path, "--job-poll-ms", "100", "--job-lease-seconds", "5",
                    "--signups-per-hour", "100000", "--allow-insecure-push-endpoints",
                ],
                environment: environment, lifetime: 600, startTimeout: 120
            )
        }
    }

    /// What the file holds, read with no server running.
    struct Snapshot: Sendable {
        struct Class: Sendable { var seats = 0, enrolled = 0, held = 0, waitlist = 0, baseEnrolled = 0, baseWaitlist = 0, rows = 0, line = 0 }
        var integrity: [String] = []
        var foreignKeyViolations = 0
        /// [student number, class id] of the drill's first students.
        var enrolled = Set<[Int64]>(), waitlisted = Set<[Int64]>()
        var overfullClasses = 0
        var classes: [Int64: Class] = [:]
        var redIDs = Set<String>()
        var schedules: [Int64: String] = [:]
        /// Diagnostics jobs, id to state.
        var jobs: [Int64: String] = [:]

        init(path: String, students: Int, classes: [Int64]) throws {
            let database = try DatabaseQueue(path: path)
            try database.read { db in
                integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                foreignKeyViolations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
                let numbers = Dictionary(uniqueKeysWithValues: (0..<students).map { (CrashDrillSlowTests.redID($0), Int64($0)) })
                for row in try Row.fetchAll(db, sql: "SELECT s.red_id, e.class_id FROM registration_enrollments e JOIN registration_students s ON s.account_id = e.student_id") {
                    if let n = numbers[row[0] as String] { enrolled.insert([n, row[1]]) }
                }
                for row in try Row.fetchAll(db, sql: "SELECT s.red_id, w.class_id FROM registration_waitlist w JOIN registration_students s ON s.account_id = w.student_id") {
                    if let n = numbers[row[0] as String] { waitlisted.insert([n, row[1]]) }
                }
                overfullClasses = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_classes WHERE enrolled + held > seats") ?? -1
                for id in classes {
                    guard let row = try Row.fetchOne(db, sql: "SELECT seats, enrolled, held, waitlist, base_enrolled, base_waitlist FROM registration_classes WHERE id = ?", arguments: [id]) else { continue }
                    self.classes[id] = Class(
                        seats: row[0], enrolled: row[1], held: row[2], waitlist: row[3], baseEnrolled: row[4], baseWaitlist: row[5],
                        rows: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_enrollments WHERE class_id = ?", arguments: [id]) ?? -1,
                        line: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_waitlist WHERE class_id = ?", arguments: [id]) ?? -1
                    )
                }
                redIDs = Set(try String.fetchAll(db, sql: "SELECT red_id FROM registration_students"))
                for row in try Row.fetchAll(db, sql: "SELECT id, name FROM scheduling_saved_schedules") { schedules[row[0]] = row[1] }
                for row in try Row.fetchAll(db, sql: "SELECT id, state FROM jobs WHERE kind = 'diagnostics.noop'") { jobs[row[0]] = row[1] }
            }
        }
    }

    @Test func acknowledgedWritesSurviveTenKillsUnderLoad() async throws {
        let directory = try Drill.scratchDirectory("crash-drill")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.sqlite").path
        // The registrar's seat feed and text alerts: a Twilio stand-in, the webhook's secret.
        let registrar = try RegistrarDrill(directory: directory)
        defer { registrar.stop() }
        let environment = registrar.environment
        var server = try await Self.serve(path, environment: environment)
        defer { server.kill9() }
        let port = server.port

        // Four small classes at times that never conflict, and students who want them.
        let admin = try #require(await Drill.token(port: port, "admin", "demo-admin-pass"))
        let classes = try await Self.makeSmallClasses(port: port, admin: admin)
        let tokens = try await Self.signUpStudents(ports: [port])

        // Webhook devices for everyone, stored gradebook accounts for half, the baseline polls.
        let notices = try await Drill.offThread { try NotificationDrill(directory: directory, database: try .sqlite(path)) }
        defer { notices.stop() }
        try await notices.setUp(port: port, admin: admin, tokens: tokens, gradebookStudents: Self.students / 2)
        try await registrar.setUp(port: port, admin: admin)

        // The load, against whichever server listens.
        let target = Target()
        target.set(0, port: port)
        let began = ContinuousClock.now
        let load = Self.startLoad(tokens: tokens, classes: classes, admin: admin, notices: notices, target: target)
        let feed = Task { await registrar.deliveries(target: target) }

        // Ten kills at random moments, each followed by a start on the same file.
        var restarts: [Double] = []
        var kills: [ContinuousClock.Instant] = []
        for _ in 0..<Self.kills {
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1500)))
            let victim = server
            kills.append(.now)
            try await Drill.offThread { victim.kill9() }
            target.set(0, port: 0)
            let down = ContinuousClock.now
            server = try await Self.serve(path, environment: environment)
            restarts.append(Drill.seconds(since: down))
            target.set(0, port: server.port)
        }
        // The last server serves until the registrar's deliveries are all taken, then dies the
        // same way, and the load stops.
        await feed.value
        try await Task.sleep(for: .seconds(2))
        let last = server
        kills.append(.now)
        try await Drill.offThread { last.kill9() }
        target.set(0, port: 0)
        target.stop.store(true, ordering: .releasing)
        let models = await load.value
        let loadSeconds = Drill.seconds(since: began)
        let tally = target.tally.withLock { $0 }
        #expect(tally.unexpected.isEmpty, "answers no request should get: \(tally.unexpected.prefix(10))")
        #expect(tally.added > 20 && tally.dropped > 10 && tally.schedules.count > 5 && tally.jobs.count > 20 && tally.signUps.count >= 3, "the load did little: \(tally)")

        // With no server running: the file is whole and holds every acknowledged answer.
        let file = try await Drill.offThread { try Snapshot(path: path, students: Self.students, classes: classes) }
        #expect(file.integrity == ["ok"])
        #expect(file.foreignKeyViolations == 0, "no row points at a missing row")
        let known = Self.expectAcknowledged(models, enrolled: file.enrolled, waitlisted: file.waitlisted, classes: classes.count)
        // Seats: never more enrolled than seats, and the counters agree with the rows.
        #expect(file.overfullClasses == 0)
        for classID in classes {
            let row = try #require(file.classes[classID])
            #expect(row.rows <= row.seats, "class \(classID): \(row.rows) enrolled in \(row.seats) seats")
            #expect(row.enrolled == row.baseEnrolled + row.rows, "class \(classID)'s enrolled counter: \(row)")
            #expect(row.waitlist == row.baseWaitlist + row.line, "class \(classID)'s waitlist counter: \(row)")
        }
        #expect(tally.signUps.allSatisfy(file.redIDs.contains), "acknowledged sign-ups missing: \(tally.signUps.filter { !file.redIDs.contains($0) })")
        for (id, name) in tally.schedules { #expect(file.schedules[id] == name, "acknowledged schedule \(id) '\(name)' is missing") }
        #expect(tally.jobs.allSatisfy { file.jobs[$0] != nil }, "acknowledged jobs missing: \(tally.jobs.filter { file.jobs[$0] == nil })")

        // Started once more: every job finishes (a claim the kills left behind expires after its
        // 5 s lease) and none stays running; the catalog it loads agrees with the file.
        server = try await Self.serve(path, environment: environment)
        let database = try DatabaseQueue(path: path)
        let finished = try await eventually(seconds: 60) {
            try await database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind = 'diagnostics.noop' AND state <> 'completed'") == 0
            }
        }
        let states = try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT state, COUNT(*) FROM jobs WHERE kind = 'diagnostics.noop' GROUP BY state").map { "\($0[0] as String): \($0[1] as Int)" }
        }
        #expect(finished, "diagnostics jobs not all completed: \(states)")
        let completed = Set(try await database.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM jobs WHERE kind = 'diagnostics.noop' AND state = 'completed'") })
        #expect(tally.jobs.allSatisfy(completed.contains))
        #expect(try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE state = 'running' AND kind = 'diagnostics.noop'") } == 0)
        for classID in classes {
            let details = await Drill.send(port: server.port, "GET", "/registration/classdetails?classid=\(classID)")
            let rows = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM registration_enrollments WHERE class_id = ?", arguments: [classID]) }
            #expect(details?.object["enrolled"] as? Int == rows, "class \(classID) served \(details?.body.prefix(80) ?? "nothing"), file has \(rows ?? -1)")
        }
        // Every notification delivered, each grade change told once, redeliveries only across kills.
        let delivered = try await notices.check(kills: kills)
        let texted = try await registrar.check(kills: kills, rows: notices.database.rows)
        #expect(server.terminate() == 0)
        #expect(try await database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])

        let averageRestart = restarts.reduce(0, +) / Double(max(restarts.count, 1))
        print(
            "crash drill: \(restarts.count) kill -9 cycles under load survived (+1 final) in \(loadSeconds) s, restarts avg \(String(format: "%.2f", averageRestart)) s max \(restarts.max() ?? 0) s; "
                + "\(tally.sent) requests, \(tally.unanswered) unanswered, \(tally.acknowledged) writes acknowledged "
                + "(registered \(tally.added), dropped \(tally.dropped), waitlisted \(tally.waitlisted), left waitlist \(tally.unwaitlisted), "
                + "sign-ups \(tally.signUps.count), schedules \(tally.schedules.count), jobs \(tally.jobs.count)), refused \(tally.refused), reads \(tally.reads); "
                + "final state of \(known) of \(Self.students * classes.count) student-class pairs known and checked; \(delivered); \(texted)"
        )
    }
}
