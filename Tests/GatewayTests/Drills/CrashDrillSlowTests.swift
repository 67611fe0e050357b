import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

/// `gateway serve --demo` on a SQLite file, killed with SIGKILL ten times under a mixed load
/// (SDSU registrations, drops and waitlists on a few small classes, sign-ups, saved schedules,
/// admin jobs, reads) and started again on the same file each time. Whatever the server said
/// it did must be in the file afterwards; what it never answered may or may not be. Slow:
/// `make check-slow`.
@Suite("Drill Slow: kill -9 under load on SQLite", .serialized, .enabled(if: ProcessInfo.processInfo.environment["GATEWAY_SLOW_TESTS"] == "1"))
struct CrashDrillSlowTests {
    static let kills = 10
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
        func send(_ method: String, _ path: String, body: String? = nil, token: String? = nil) async -> Drill.Reply? {
            let port = self.port
            guard port > 0 else {
                try? await Task.sleep(for: .milliseconds(20))
                return nil
            }
            let reply = await Drill.send(port: port, method, path, body: body, token: token, timeout: 15)
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

    /// One student's load: registrations, drops and waitlists on `classes` (one at a time, as a
    /// student's app makes them), saved schedules and reads; returns what the answers say of each class.
    static func student(_ n: Int, token: String, classes: [Int64], target: Target) async -> [Int64: Seat] {
        var seats = Dictionary(uniqueKeysWithValues: classes.map { ($0, Seat.absent) })
        let who = credentials(redID(n))
        var saved = 0
        func sdsu(_ action: String, _ classID: Int64) async -> Drill.Reply? {
            await target.send("GET", "/registration/\(action)?\(who)&courseid=\(classID)")
        }
        while target.running {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 5...25)))
            if target.port == 0 { continue }
            let roll = Int.random(in: 0..<10)
            if roll == 0 {
                saved += 1
                let name = "drill \(n)-\(saved)"
                let picked = classes.shuffled().prefix(Int.random(in: 1...classes.count))
                let reply = await target.send(
                    "POST", "/v1/me/schedules", body: #"{"name":"\#(name)","term":"\#(term)","classIds":[\#(picked.map(String.init).joined(separator: ","))]}"#,
                    token: token
                )
                if let reply, reply.status == 201, let id = reply.object["id"] as? Int {
                    target.tally.withLock { $0.schedules.append((Int64(id), name)) }
                }
                continue
            }
            if roll == 1 {
                if await target.send("GET", "/registration/studentclasses?\(who)") != nil { target.tally.withLock { $0.reads += 1 } }
                continue
            }
            let classID = classes.randomElement()!
            switch seats[classID]! {
            case .absent:
                guard let reply = await sdsu("registerclass", classID) else { seats[classID] = .unknown; continue }
                if reply.ok == "Course added" {
                    seats[classID] = .enrolled
                    target.tally.withLock { $0.added += 1 }
                } else if reply.error == "Course is full" {
                    guard let waited = await sdsu("waitlistclass", classID) else { seats[classID] = .unknown; continue }
                    if waited.ok == "Course added" {
                        seats[classID] = .waitlisted
                        target.tally.withLock { $0.waitlisted += 1 }
                    } else {
                        target.tally.withLock { $0.refused += 1 }
                    }
                } else {
                    // Refused (class limit, waitlist limit, busy): nothing changed.
                    target.tally.withLock { $0.refused += 1 }
                }
            case .enrolled:
                guard let reply = await sdsu("unregisterclass", classID) else { seats[classID] = .unknown; continue }
                if reply.ok == "Course dropped" {
                    seats[classID] = .absent
                    target.tally.withLock { $0.dropped += 1 }
                }
            case .waitlisted:
                guard let reply = await sdsu("unwaitlistclass", classID) else { seats[classID] = .unknown; continue }
                if reply.ok == "Course dropped" {
                    seats[classID] = .absent
                    target.tally.withLock { $0.unwaitlisted += 1 }
                }
            case .unknown:
                // A request that got no answer: find out by leaving the class, whatever it was.
                guard let reply = await sdsu("unregisterclass", classID) else { continue }
                if reply.ok == "Course dropped" {
                    seats[classID] = .absent
                    target.tally.withLock { $0.dropped += 1 }
                } else if reply.error == "Student not in course" {
                    guard let line = await sdsu("unwaitlistclass", classID) else { continue }
                    if line.ok == "Course dropped" {
                        seats[classID] = .absent
                        target.tally.withLock { $0.unwaitlisted += 1 }
                    } else if line.error == "Student not on waitlist" {
                        seats[classID] = .absent
                    }
                }
            }
        }
        return seats
    }

    /// Admin jobs, each with a key of its own.
    static func jobs(admin: String, target: Target) async {
        var n = 0
        while target.running {
            n += 1
            let reply = await target.send("POST", "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"drill-\#(n)"}"#, token: admin)
            if let reply, reply.status == 201, let id = reply.object["id"] as? Int {
                target.tally.withLock { $0.jobs.append(Int64(id)) }
            } else if let reply, reply.status == 200 {
                target.tally.withLock { $0.unexpected.append("job drill-\(n) answered 200: a live job already had its key") }
            }
            try? await Task.sleep(for: .milliseconds(60))
        }
    }

    /// New students signing up through the SDSU protocol, and catalog reads.
    static func signUpsAndReads(classes: [Int64], target: Target) async {
        var n = 1000
        while target.running {
            n += 1
            let redID = redID(n)
            let reply = await target.send(
                "POST", "/registration/addstudent",
                body: #"{"firstname":"Drill","lastname":"N\#(n)","redid":"\#(redID)","password":"\#(password)","email":"d\#(n)@sdsu.edu"}"#
            )
            if reply?.ok == "Student Added" { target.tally.withLock { $0.signUps.append(redID) } }
            for classID in classes where target.running {
                if await target.send("GET", "/registration/classdetails?classid=\(classID)") != nil { target.tally.withLock { $0.reads += 1 } }
            }
            try? await Task.sleep(for: .milliseconds(150))
        }
    }

    static func serve(_ path: String) async throws -> ServingGateway {
        try await Drill.offThread {
            try ServingGateway(
                arguments: [
                    "--demo", "--demo-passwords", "documented", "--database", path, "--job-poll-ms", "100", "--job-lease-seconds", "5",
                    "--signups-per-hour", "100000",
                ],
                lifetime: 600, startTimeout: 120
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
        var server = try await Self.serve(path)
        defer { server.kill9() }
        let port = server.port

        // Four small classes at times that never conflict, and students who want them.
        let admin = try #require(await Drill.token(port: port, "admin", "demo-admin-pass"))
        var madeClasses: [Int64] = []
        for (n, (days, start, end)) in [("MW", "0800", "0850"), ("MW", "0900", "0950"), ("TTH", "0800", "0850"), ("TTH", "0900", "0950")].enumerated() {
            let made = await Drill.send(
                port: port, "POST", "/v1/admin/registration/classes",
                body: #"{"term":"\#(Self.term)","subject":"CS","course":"540","section":"D\#(n)","scheduleNumber":"3990\#(n)","seats":3,"#
                    + #""instructors":["A. TURING"],"meetings":[{"days":"\#(days)","start":"\#(start)","end":"\#(end)","building":"GMCS","room":"101"}]}"#,
                token: admin
            )
            madeClasses.append(Int64(try #require(made?.object["id"] as? Int, "\(made?.status ?? 0) \(made?.body ?? "no answer")")))
        }
        let classes = madeClasses
        var tokens: [String] = []
        for n in 0..<Self.students {
            let added = await Drill.send(
                port: port, "POST", "/registration/addstudent",
                body: #"{"firstname":"Drill","lastname":"S\#(n)","redid":"\#(Self.redID(n))","password":"\#(Self.password)","email":"s\#(n)@sdsu.edu"}"#
            )
            #expect(added?.ok == "Student Added", "\(added?.body ?? "no answer")")
            tokens.append(try #require(await Drill.token(port: port, Self.redID(n), Self.password)))
        }

        // The load, against whichever server listens.
        let studentTokens = tokens, smallClasses = classes
        let target = Target()
        target.set(0, port: port)
        let began = ContinuousClock.now
        let load = Task {
            await withTaskGroup(of: (Int, [Int64: Seat])?.self) { group in
                for n in 0..<Self.students {
                    let token = studentTokens[n]
                    group.addTask { (n, await Self.student(n, token: token, classes: smallClasses, target: target)) }
                }
                group.addTask { await Self.jobs(admin: admin, target: target); return nil }
                group.addTask { await Self.signUpsAndReads(classes: smallClasses, target: target); return nil }
                var models: [Int: [Int64: Seat]] = [:]
                for await result in group { if let (n, seats) = result { models[n] = seats } }
                return models
            }
        }

        // Ten kills at random moments, each followed by a start on the same file.
        var restarts: [Double] = []
        for _ in 0..<Self.kills {
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1500)))
            let victim = server
            try await Drill.offThread { victim.kill9() }
            target.set(0, port: 0)
            let down = ContinuousClock.now
            server = try await Self.serve(path)
            restarts.append(Drill.seconds(since: down))
            target.set(0, port: server.port)
        }
        // The last server serves a while, then dies the same way, and the load stops.
        try await Task.sleep(for: .seconds(2))
        let last = server
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
        server = try await Self.serve(path)
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
        #expect(server.terminate() == 0)
        #expect(try await database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])

        let averageRestart = restarts.reduce(0, +) / Double(max(restarts.count, 1))
        print(
            "crash drill: \(restarts.count) kill -9 cycles under load survived (+1 final) in \(loadSeconds) s, restarts avg \(String(format: "%.2f", averageRestart)) s max \(restarts.max() ?? 0) s; "
                + "\(tally.sent) requests, \(tally.unanswered) unanswered, \(tally.acknowledged) writes acknowledged "
                + "(registered \(tally.added), dropped \(tally.dropped), waitlisted \(tally.waitlisted), left waitlist \(tally.unwaitlisted), "
                + "sign-ups \(tally.signUps.count), schedules \(tally.schedules.count), jobs \(tally.jobs.count)), refused \(tally.refused), reads \(tally.reads); "
                + "final state of \(known) of \(Self.students * classes.count) student-class pairs known and checked"
        )
    }
}
