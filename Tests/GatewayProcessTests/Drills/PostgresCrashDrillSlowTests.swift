import Foundation
import Gradebook
import PostgresStores
import SQLiteStores
import Storage
import Synchronization
import TestSupport
import Testing
import PostgresStorage

/// The crash drill on PostgreSQL: two `gateway serve --demo` instances on one database of a
/// cluster of the drill's own, behind a stand-in load balancer (each request to either), under
/// the SQLite drill's mixed load (grade polls and webhook deliveries included); one of them (alternately) killed with SIGKILL ten times and
/// started again each time. Whatever either said it did must be in the database afterwards.
/// Slow: `make check-slow`.
@Suite("Drill Slow: kill -9 of one of two instances under load on PostgreSQL", .serialized, .enabled(if: SlowSuites.enabled))
struct PostgresCrashDrillSlowTests {
    typealias Base = CrashDrillSlowTests
    static let kills = SlowSuites.size(full: 10, trimmed: 3)
    static let instances = 2

    /// Where each instance's standard error goes (`artifacts/drills/postgres-crash/<pid-order>`):
    /// an answer no request should get names its request id, and the instance's log says why.
    static let logs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("artifacts/drills/postgres-crash-\(UUID().uuidString.prefix(8))")
    static let started = Atomic<Int>(0)

    /// The lines the instances logged (``logs``) with the request ids of `answers`.
    static func logged(_ answers: some Sequence<String>) -> [String] {
        let ids = answers.compactMap { answer in answer.firstMatch(of: /"requestId":"([0-9a-f]+)/).map { String($0.1) } }
        guard !ids.isEmpty, let folders = try? FileManager.default.contentsOfDirectory(at: logs, includingPropertiesForKeys: nil) else { return [] }
        return folders.flatMap { folder -> [String] in
            let text = (try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { line in ids.contains { line.contains($0) } }.map { "\(folder.lastPathComponent): \($0)" }
        }
    }

    static func serve(_ url: String) async throws -> ServingGateway {
        let output = logs.appendingPathComponent("instance-\(started.add(1, ordering: .relaxed).newValue)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        return try await Drill.offThread {
            try ServingGateway(
                arguments: [
                    "--demo", "--demo-passwords", "documented", "--database", url, "--job-poll-ms", "100", "--job-lease-seconds", "5",
                    "--signups-per-hour", "100000", "--allow-insecure-push-endpoints",
                ],
                environment: [VaultKeySource.keyVariable: TestVaultKey.base64],
                lifetime: 600, startTimeout: 120, output: output
            )
        }
    }

    /// What the database holds, read through psql.
    struct Snapshot: Sendable {
        struct Class: Sendable { var seats = 0, enrolled = 0, held = 0, waitlist = 0, baseEnrolled = 0, baseWaitlist = 0, rows = 0, line = 0 }
        /// [student number, class id] of the drill's first students.
        var enrolled = Set<[Int64]>(), waitlisted = Set<[Int64]>()
        var overfullClasses = -1
        /// Counts of rows that break a rule: each must be 0.
        var violations: [String: Int] = [:]
        var classes: [Int64: Class] = [:]
        var redIDs = Set<String>()
        var schedules: [Int64: String] = [:]
        var jobs: [Int64: String] = [:]

        init(cluster: ScratchPostgres, database: String, students: Int, classes: [Int64]) throws {
            func rows(_ query: String) throws -> [[String]] { try cluster.rows(query, database: database) }
            func count(_ query: String) throws -> Int { Int(try rows(query).first?.first ?? "") ?? -1 }
            let numbers = Dictionary(uniqueKeysWithValues: (0..<students).map { (Base.redID($0), Int64($0)) })
            for row in try rows("SELECT s.red_id, e.class_id FROM registration_enrollments e JOIN registration_students s ON s.account_id = e.student_id") {
                if let n = numbers[row[0]], let id = Int64(row[1]) { enrolled.insert([n, id]) }
            }
            for row in try rows("SELECT s.red_id, w.class_id FROM registration_waitlist w JOIN registration_students s ON s.account_id = w.student_id") {
                if let n = numbers[row[0]], let id = Int64(row[1]) { waitlisted.insert([n, id]) }
            }
            overfullClasses = try count("SELECT count(*) FROM registration_classes WHERE enrolled + held > seats")
            violations = [
                "enrolled and waitlisted at once": try count(
                    "SELECT count(*) FROM registration_enrollments e JOIN registration_waitlist w USING (student_id, class_id)"
                ),
                "enrolled counter differs from the rows": try count(
                    "SELECT count(*) FROM registration_classes c WHERE c.enrolled <> c.base_enrolled + (SELECT count(*) FROM registration_enrollments e WHERE e.class_id = c.id)"
                ),
                "waitlist counter differs from the line": try count(
                    "SELECT count(*) FROM registration_classes c WHERE c.waitlist <> c.base_waitlist + (SELECT count(*) FROM registration_waitlist w WHERE w.class_id = c.id)"
                ),
                "held counter differs from the open offers": try count(
                    "SELECT count(*) FROM registration_classes c WHERE c.held <> (SELECT count(*) FROM registration_offers o WHERE o.class_id = c.id AND o.state = 'open')"
                ),
                "more enrolled rows than seats": try count(
                    "SELECT count(*) FROM registration_classes c WHERE (SELECT count(*) FROM registration_enrollments e WHERE e.class_id = c.id) > c.seats"
                ),
                "negative counters": try count("SELECT count(*) FROM registration_classes WHERE enrolled < 0 OR held < 0 OR waitlist < 0"),
                "enrollment of a missing student or class": try count(
                    "SELECT count(*) FROM registration_enrollments e WHERE NOT EXISTS (SELECT 1 FROM registration_students s WHERE s.account_id = e.student_id) "
                        + "OR NOT EXISTS (SELECT 1 FROM registration_classes c WHERE c.id = e.class_id)"
                ),
                "student without an account": try count(
                    "SELECT count(*) FROM registration_students s WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id)"
                ),
                "two live jobs with one key": try count(
                    "SELECT count(*) FROM (SELECT unique_key FROM jobs WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'running', 'retryable') GROUP BY unique_key HAVING count(*) > 1) d"
                ),
                "invalid constraints": try count("SELECT count(*) FROM pg_constraint WHERE NOT convalidated"),
            ]
            let idList = classes.map(String.init).joined(separator: ",")
            for row in try rows(
                "SELECT id, seats, enrolled, held, waitlist, base_enrolled, base_waitlist, "
                    + "(SELECT count(*) FROM registration_enrollments e WHERE e.class_id = c.id), (SELECT count(*) FROM registration_waitlist w WHERE w.class_id = c.id) "
                    + "FROM registration_classes c WHERE id IN (\(idList))"
            ) {
                let v = row.map { Int($0) ?? -1 }
                self.classes[Int64(v[0])] = Class(seats: v[1], enrolled: v[2], held: v[3], waitlist: v[4], baseEnrolled: v[5], baseWaitlist: v[6], rows: v[7], line: v[8])
            }
            redIDs = Set(try rows("SELECT red_id FROM registration_students").map { $0[0] })
            for row in try rows("SELECT id, name FROM scheduling_saved_schedules") { if let id = Int64(row[0]) { schedules[id] = row[1] } }
            for row in try rows("SELECT id, state FROM jobs WHERE kind = 'diagnostics.noop'") { if let id = Int64(row[0]) { jobs[id] = row[1] } }
        }
    }

    @Test func acknowledgedWritesSurviveTenKillsOfOneOfTwoInstances() async throws {
        let started = ContinuousClock.now
        let cluster = try await Drill.offThread { try ScratchPostgres() }
        defer { cluster.destroy() }
        let name = "crashdrill"
        let url = try await Drill.offThread { try cluster.database(name) }
        // The first seeds the demo data; the second, started once the drill's classes are made,
        // finds it.
        var servers = [try await Self.serve(url)]
        defer { for server in servers { server.kill9() } }
        let port = servers[0].port

        // Four small classes at times that never conflict, and students who want them.
        let admin = try #require(await Drill.token(port: port, "admin", "demo-admin-pass"))
        let classes = try await Base.makeSmallClasses(port: port, admin: admin)
        servers.append(try await Self.serve(url))
        let tokens = try await Base.signUpStudents(ports: servers.map(\.port))
        // Each instance knows of the classes the first made (the second's catalog follows notices).
        for server in servers {
            for classID in classes {
                #expect(try await eventually(seconds: 10) {
                    await Drill.send(port: server.port, "GET", "/registration/classdetails?classid=\(classID)")?.status == 200
                }, "instance on \(server.port) serves class \(classID)")
            }
        }

        // Webhook devices for everyone, stored gradebook accounts for half, the baseline polls.
        let scratch = try Drill.scratchDirectory("postgres-crash-drill")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (drillDatabase, pool) = try NotificationDrill.Database.postgres(cluster, database: name, url: url)
        let notices = try await Drill.offThread { try NotificationDrill(directory: scratch, database: drillDatabase) }
        defer { notices.stop() }
        try await notices.setUp(port: port, admin: admin, tokens: tokens, gradebookStudents: Base.students / 2)

        // The load, spread over whichever instances listen.
        let target = Base.Target(instances: Self.instances)
        for (index, server) in servers.enumerated() { target.set(index, port: server.port) }
        let setUp = Drill.seconds(since: started)
        let began = ContinuousClock.now
        let load = Base.startLoad(tokens: tokens, classes: classes, admin: admin, notices: notices, target: target)

        // Ten kills of one instance at random moments (alternating which), each followed by a
        // start of a new one in its place; the other serves throughout.
        var restarts: [Double] = []
        var kills: [ContinuousClock.Instant] = []
        for cycle in 0..<Self.kills {
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1500)))
            let index = cycle % Self.instances
            let victim = servers[index]
            target.set(index, port: 0)
            kills.append(.now)
            try await Drill.offThread { victim.kill9() }
            let down = ContinuousClock.now
            servers[index] = try await Self.serve(url)
            restarts.append(Drill.seconds(since: down))
            target.set(index, port: servers[index].port)
        }
        // Both serve a while, then die the same way, and the load stops.
        try await Task.sleep(for: .seconds(2))
        for index in servers.indices { target.set(index, port: 0) }
        let last = servers
        kills.append(.now)
        try await Drill.offThread { for server in last { server.kill9() } }
        target.stop.store(true, ordering: .releasing)
        let models = await load.value
        let loadSeconds = Drill.seconds(since: began)
        let tally = target.tally.withLock { $0 }
        #expect(tally.unexpected.isEmpty, "answers no request should get: \(tally.unexpected.prefix(10)); what the instances logged of them: \(Self.logged(tally.unexpected.prefix(10)))")
        #expect(tally.added > 20 && tally.dropped > 10 && tally.schedules.count > 5 && tally.jobs.count > 20 && tally.signUps.count >= 3, "the load did little: \(tally)")

        // With no instance running: the database holds every acknowledged answer and breaks no rule.
        let db = try await Drill.offThread { try Snapshot(cluster: cluster, database: name, students: Base.students, classes: classes) }
        let known = Base.expectAcknowledged(models, enrolled: db.enrolled, waitlisted: db.waitlisted, classes: classes.count)
        #expect(db.overfullClasses == 0, "classes over capacity (enrolled + held > seats)")
        for (rule, count) in db.violations.sorted(by: { $0.key < $1.key }) { #expect(count == 0, "\(rule): \(count)") }
        for classID in classes {
            let row = try #require(db.classes[classID])
            #expect(row.rows <= row.seats, "class \(classID): \(row.rows) enrolled in \(row.seats) seats")
            #expect(row.enrolled == row.baseEnrolled + row.rows, "class \(classID)'s enrolled counter: \(row)")
            #expect(row.waitlist == row.baseWaitlist + row.line, "class \(classID)'s waitlist counter: \(row)")
        }
        #expect(tally.signUps.allSatisfy(db.redIDs.contains), "acknowledged sign-ups missing: \(tally.signUps.filter { !db.redIDs.contains($0) })")
        for (id, name) in tally.schedules { #expect(db.schedules[id] == name, "acknowledged schedule \(id) '\(name)' is missing") }
        #expect(tally.jobs.allSatisfy { db.jobs[$0] != nil }, "acknowledged jobs missing: \(tally.jobs.filter { db.jobs[$0] == nil })")

        // Both started once more: every job finishes (a claim the kills left behind expires after
        // its 5 s lease) and none stays running; each catalog agrees with the database.
        let checked = ContinuousClock.now
        async let first = Self.serve(url)
        async let second = Self.serve(url)
        servers = [try await first, try await second]
        let finished = try await eventually(seconds: 60) {
            try await Drill.offThread {
                try cluster.rows("SELECT count(*) FROM jobs WHERE kind = 'diagnostics.noop' AND state <> 'completed'", database: name).first?.first == "0"
            }
        }
        let states = try await Drill.offThread {
            try cluster.rows("SELECT state, count(*) FROM jobs WHERE kind = 'diagnostics.noop' GROUP BY state", database: name).map { $0.joined(separator: ": ") }
        }
        #expect(finished, "diagnostics jobs not all completed: \(states)")
        let completed = Set(try await Drill.offThread {
            try cluster.rows("SELECT id FROM jobs WHERE kind = 'diagnostics.noop' AND state = 'completed'", database: name).compactMap { Int64($0[0]) }
        })
        #expect(tally.jobs.allSatisfy(completed.contains), "acknowledged jobs not completed: \(tally.jobs.filter { !completed.contains($0) }.prefix(10))")
        let running = try await Drill.offThread {
            try cluster.rows("SELECT count(*) FROM jobs WHERE kind = 'diagnostics.noop' AND state = 'running'", database: name).first?.first
        }
        #expect(running == "0")
        for classID in classes {
            let rows = try await Drill.offThread {
                Int(try cluster.rows("SELECT count(*) FROM registration_enrollments WHERE class_id = \(classID)", database: name).first?.first ?? "")
            }
            for server in servers {
                let details = await Drill.send(port: server.port, "GET", "/registration/classdetails?classid=\(classID)")
                #expect(details?.object["enrolled"] as? Int == rows, "class \(classID) served \(details?.body.prefix(80) ?? "nothing") on \(server.port), database has \(rows ?? -1)")
            }
        }
        // Every notification delivered, each grade change told once, redeliveries only across kills.
        let delivered = try await notices.check(kills: kills)
        await pool.shutdown()
        for server in servers { #expect(server.terminate() == 0) }

        let averageRestart = restarts.reduce(0, +) / Double(max(restarts.count, 1))
        print(
            "postgres crash drill: \(restarts.count) kill -9 cycles of one of \(Self.instances) instances under load survived (+1 final of both) in \(loadSeconds) s "
                + "(set-up \(setUp) s, final checks \(Drill.seconds(since: checked)) s), "
                + "restarts avg \(String(format: "%.2f", averageRestart)) s max \(restarts.max() ?? 0) s; "
                + "\(tally.sent) requests, \(tally.unanswered) unanswered, \(tally.acknowledged) writes acknowledged "
                + "(registered \(tally.added), dropped \(tally.dropped), waitlisted \(tally.waitlisted), left waitlist \(tally.unwaitlisted), "
                + "sign-ups \(tally.signUps.count), schedules \(tally.schedules.count), jobs \(tally.jobs.count)), refused \(tally.refused), reads \(tally.reads); "
                + "final state of \(known) of \(Base.students * classes.count) student-class pairs known and checked; \(delivered)"
        )
    }
}
