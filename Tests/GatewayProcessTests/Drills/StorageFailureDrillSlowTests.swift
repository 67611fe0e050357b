import Foundation
import GRDB
import Gradebook
import Synchronization
import TestSupport
import Testing

/// The database's storage fails under a running gateway, then comes back: SQLite on a disk
/// that fills up, PostgreSQL stopped mid-load. Meanwhile writes answer 503 problems with
/// `Retry-After` (never a 500), `/readyz` is red and reads that need no write go on; once the
/// storage is back, the same process serves writes again by itself. Slow: `make check-slow`.
@Suite("Drill Slow: storage failures", .serialized, .enabled(if: SlowSuites.enabled))
struct StorageFailureDrillSlowTests {
    /// Saved schedules and admin jobs, one after another, from one student and one admin.
    final class WriteLoad: Sendable {
        struct Tally: Sendable {
            var statuses: [Int: Int] = [:]
            var unanswered = 0
            /// Answers that are neither done (201) nor a 503 problem with Retry-After.
            var unexpected: [String] = []
            var schedules: [Int64] = []
            var jobs: [Int64] = []
            var lastDone: ContinuousClock.Instant?
            var lastUnavailable: ContinuousClock.Instant?
            var unavailable = 0
        }

        let port: Int
        let student: String, admin: String
        let classID: Int64, term: String
        let tally = Mutex(Tally())
        private let stopped = Atomic<Bool>(false)
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(port: Int, student: String, admin: String, classID: Int64, term: String) {
            (self.port, self.student, self.admin, self.classID, self.term) = (port, student, admin, classID, term)
        }

        func start() {
            let task = Task { [self] in
                var n = 0
                while !stopped.load(ordering: .acquiring) {
                    n += 1
                    let reply =
                        n % 2 == 0
                        ? await Drill.send(
                            port: port, "POST", "/v1/me/schedules", body: #"{"name":"drill \#(n)","term":"\#(term)","classIds":[\#(classID)]}"#, token: student,
                            timeout: 20
                        )
                        : await Drill.send(
                            port: port, "POST", "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"storage-drill-\#(n)"}"#, token: admin,
                            timeout: 20
                        )
                    record(reply, schedule: n % 2 == 0)
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            self.task.withLock { $0 = task }
        }

        func record(_ reply: Drill.Reply?, schedule: Bool) {
            tally.withLock { tally in
                guard let reply else {
                    tally.unanswered += 1
                    return
                }
                tally.statuses[reply.status, default: 0] += 1
                if reply.status == 201, let id = reply.object["id"] as? Int {
                    tally.lastDone = .now
                    if schedule { tally.schedules.append(Int64(id)) } else { tally.jobs.append(Int64(id)) }
                } else if reply.isUnavailableProblem {
                    tally.lastUnavailable = .now
                    tally.unavailable += 1
                } else {
                    tally.unexpected.append("\(reply.status) \(reply.contentType ?? "") Retry-After: \(reply.retryAfter ?? "none") \(reply.body.prefix(200))")
                }
            }
        }

        func stop() async {
            halt()
            await task.withLock { $0 }?.value
        }

        /// Stops sending (for a test that ends early).
        func halt() { stopped.store(true, ordering: .releasing) }

        /// Whether a write was done (or refused as unavailable) after `instant`.
        func done(after instant: ContinuousClock.Instant) -> Bool { tally.withLock { $0.lastDone.map { $0 > instant } ?? false } }
        func unavailable(after instant: ContinuousClock.Instant) -> Bool { tally.withLock { $0.lastUnavailable.map { $0 > instant } ?? false } }
        var summary: String {
            tally.withLock { "statuses \($0.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")), unanswered \($0.unanswered)" }
        }
    }

    static func readyz(_ port: Int) async -> Int { await Drill.send(port: port, "GET", "/readyz", timeout: 15)?.status ?? 0 }

    /// How the server came back once the cause was gone at `since`: whether a write was done
    /// and `/readyz` went green, each within 30 s, and after how many seconds.
    struct Recovery: Sendable {
        var writing = false, ready = false
        var writesBack = 0.0, readyBack = 0.0
    }

    static func recovery(of load: WriteLoad, port: Int, since: ContinuousClock.Instant) async -> Recovery {
        var recovery = Recovery()
        recovery.writing = await eventually(seconds: 30) { load.done(after: since) }
        recovery.writesBack = Drill.seconds(since: since)
        recovery.ready = await eventually(seconds: 30) { await Self.readyz(port) == 200 }
        recovery.readyBack = Drill.seconds(since: since)
        return recovery
    }

    // MARK: - SQLite on a disk that fills up

    @Test func sqliteOnAFullDiskAnswers503AndRecoversByItself() async throws {
        guard getuid() == 0 else { try Test.cancel("mounting a small tmpfs needs root; this run is uid \(getuid())") }
        let mountPoint = try Drill.scratchDirectory("full-disk-drill")
        defer { try? FileManager.default.removeItem(at: mountPoint) }
        let mounted = try await Drill.offThread { try Drill.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint.path]) }
        guard mounted.status == 0 else { try Test.cancel("mount -t tmpfs failed (\(mounted.status)): \(mounted.output)") }
        defer {
            if (try? Drill.run(["umount", mountPoint.path]))?.status != 0 { _ = try? Drill.run(["umount", "-l", mountPoint.path]) }
        }
        let path = mountPoint.appendingPathComponent("gateway.sqlite").path
        let filler = mountPoint.appendingPathComponent("filler").path

        let server = try await Drill.offThread {
            try ServingGateway(arguments: ["--demo", "--demo-passwords", "documented", "--database", path, "--job-poll-ms", "100"], lifetime: 300, startTimeout: 120)
        }
        defer { server.kill9() }
        let port = server.port
        let admin = try #require(await Drill.token(port: port, "admin", "demo-admin-pass"))
        let student = try #require(await Drill.token(port: port, "student", "demo-student-pass"))
        let sdsu = "redid=931000001&password=drill-pass-7"
        let signedUp = await Drill.send(
            port: port, "POST", "/registration/addstudent",
            body: #"{"firstname":"Full","lastname":"Disk","redid":"931000001","password":"drill-pass-7","email":"full@sdsu.edu"}"#
        )
        #expect(signedUp?.ok == "Student Added", "\(signedUp?.body ?? "no answer")")
        #expect(await Self.readyz(port) == 200)

        let load = WriteLoad(port: port, student: student, admin: admin, classID: 7033, term: "2018-fall")
        load.start()
        defer { load.halt() }
        try await Task.sleep(for: .seconds(1))
        #expect(load.done(after: .now - .seconds(1)), "writes are done before the disk fills: \(load.summary)")

        // Fill the disk to the last block.
        let filled = ContinuousClock.now
        let dd = try await Drill.offThread { try Drill.run(["dd", "if=/dev/zero", "of=\(filler)", "bs=64k"]) }
        #expect(dd.status != 0 && dd.output.contains("No space left"), "dd stopped for another reason: \(dd.output)")
        let readyzRed = await eventually(seconds: 10) { await Self.readyz(port) == 503 }
        #expect(readyzRed, "/readyz stays green on a full disk")
        let refused = await eventually(seconds: 30) { load.unavailable(after: filled) }
        #expect(refused, "no write answered 503 within 30 s of the disk filling up: \(load.summary)")
        let refusedAfter = Drill.seconds(since: filled)
        try await Task.sleep(for: .seconds(2))

        // Full: reads go on; an SDSU registration is refused in the protocol's form, with Retry-After.
        for (path, token) in [("/v1/me/schedules", student), ("/registration/classdetails?classid=7033", nil), ("/v1/registration/classes/7033", nil), ("/v1/me", student)] {
            let read = await Drill.send(port: port, "GET", path, token: token)
            #expect(read?.status == 200, "GET \(path) on a full disk: \(read?.status ?? 0) \(read?.body.prefix(200) ?? "no answer")")
        }
        // (A write that still fits, in pages the file already has, is done: SQLite refuses only
        // what it can't store. Either way the answer is the protocol's, never a 500.)
        let registered = await Drill.send(port: port, "GET", "/registration/registerclass?\(sdsu)&courseid=7033")
        let fitted = registered?.ok == "Course added"
        #expect(
            fitted || (registered?.status == 200 && registered?.error != nil && registered?.retryAfter != nil),
            "\(registered?.status ?? 0) \(registered?.body ?? "no answer")"
        )
        let full = load.tally.withLock { $0 }
        #expect(full.unavailable >= 3, "writes refused while full: \(load.summary)")

        // Room again: the same process writes and is ready again by itself.
        try FileManager.default.removeItem(atPath: filler)
        let back = await Self.recovery(of: load, port: port, since: .now)
        #expect(back.writing, "no write was done within 30 s of making room: \(load.summary)")
        #expect(back.ready, "/readyz stays red after making room")
        let registeredAgain = await Drill.send(port: port, "GET", "/registration/registerclass?\(sdsu)&courseid=7033")
        if fitted {
            #expect(registeredAgain?.error == "Student already in course", "the registration done on the full disk is kept: \(registeredAgain?.body ?? "no answer")")
        } else {
            #expect(registeredAgain?.ok == "Course added", "\(registeredAgain?.body ?? "no answer")")
        }
        try await Task.sleep(for: .seconds(1))
        await load.stop()

        let tally = load.tally.withLock { $0 }
        #expect(tally.unexpected.isEmpty, "answers other than 201 or a 503 problem with Retry-After: \(tally.unexpected.prefix(5))")
        #expect(tally.unanswered == 0, "requests that got no answer: \(load.summary)")
        #expect(server.terminate() == 0)
        let (integrity, schedules, jobs) = try await Drill.offThread {
            try DatabaseQueue(path: path).read { db in
                (
                    try String.fetchAll(db, sql: "PRAGMA integrity_check"), Set(try Int64.fetchAll(db, sql: "SELECT id FROM scheduling_saved_schedules")),
                    Set(try Int64.fetchAll(db, sql: "SELECT id FROM jobs"))
                )
            }
        }
        #expect(integrity == ["ok"])
        #expect(tally.schedules.allSatisfy(schedules.contains) && tally.jobs.allSatisfy(jobs.contains), "an acknowledged write is missing")
        print(
            "full-disk drill: writes refused (503) \(refusedAfter) s after the disk filled, \(tally.unavailable) refused in all; after making room writes back in \(back.writesBack) s, "
                + "/readyz green in \(back.readyBack) s; \(tally.schedules.count + tally.jobs.count) writes acknowledged, all present; \(load.summary); integrity ok"
        )
    }

    // MARK: - PostgreSQL stopped mid-load

    @Test func postgresStoppedMidLoadAnswers503AndRecoversByItself() async throws {
        let cluster = try await Drill.offThread { try ScratchPostgres() }
        defer { cluster.destroy() }
        let url = try await Drill.offThread { try cluster.database("drill") }
        let environment = [VaultKeySource.keyVariable: TestVaultKey.base64]
        let password = "a drill passphrase"
        let made = try await Drill.offThread {
            try GatewayBinary.runBlocking(["admin", "create-user", "--database", url, "--username", "root", "--role", "admin", "--password", password], environment: environment)
        }
        #expect(made.status == 0, "\(made.stderr)")
        let server = try await Drill.offThread {
            try ServingGateway(arguments: ["--database", url, "--database-connections", "4", "--job-poll-ms", "200"], environment: environment, lifetime: 300)
        }
        defer { server.kill9() }
        let port = server.port
        let admin = try #require(await Drill.token(port: port, "root", password))
        let catalog = #"{"term":"2019-spring","subjects":[{"id":300,"code":"XYZ","title":"Xylophony","college":"Arts"}],"courses":[{"subject":"XYZ","number":"101","title":"XYLO I"}],"classes":[{"subject":"XYZ","course":"101","section":"01","scheduleNumber":"1","seats":10}]}"#
        let imported = await Drill.send(port: port, "POST", "/v1/admin/registration/imports?format=native", body: catalog, token: admin)
        #expect(imported?.status == 200, "\(imported?.body ?? "no answer")")
        let listed = await Drill.send(port: port, "GET", "/v1/registration/classes?subject=XYZ")
        let classID = Int64(try #require((listed?.object["items"] as? [[String: Any]])?.first?["id"] as? Int, "\(listed?.body ?? "no answer")"))
        let account = await Drill.send(port: port, "POST", "/v1/admin/accounts", body: #"{"username":"pupil","password":"\#(password)","role":"student"}"#, token: admin)
        #expect(account?.status == 201, "\(account?.body ?? "no answer")")
        let student = try #require(await Drill.token(port: port, "pupil", password))

        let load = WriteLoad(port: port, student: student, admin: admin, classID: classID, term: "2019-spring")
        load.start()
        defer { load.halt() }
        try await Task.sleep(for: .seconds(1))
        #expect(load.done(after: .now - .seconds(1)), "writes are done before the stop: \(load.summary)")

        // Stopped (fast: every session is ended): 503 problems, /readyz red.
        try await Drill.offThread { try cluster.stop() }
        let stopped = ContinuousClock.now
        let refused = await eventually(seconds: 30) { load.unavailable(after: stopped) }
        let refusedAfter = Drill.seconds(since: stopped)
        #expect(refused, "no write answered 503 within 30 s of the stop: \(load.summary)")
        let readyzRed = await eventually(seconds: 15) { await Self.readyz(port) == 503 }
        #expect(readyzRed, "/readyz stays green with the database stopped")
        try await Task.sleep(for: .seconds(5))
        // Each refusal waits for a connection first (GatewayPostgres.connectionWait, 5 s).
        let down = load.tally.withLock { $0 }
        #expect(down.unavailable >= 2, "writes refused while stopped: \(load.summary)")

        // Started again on the same directory and port: the same process recovers by itself.
        try await Drill.offThread { try cluster.startAgain() }
        let back = await Self.recovery(of: load, port: port, since: .now)
        #expect(back.writing, "no write was done within 30 s of the restart: \(load.summary)")
        #expect(back.ready, "/readyz stays red after the restart")
        try await Task.sleep(for: .seconds(1))
        await load.stop()

        // Workers run jobs again: one enqueued now completes.
        let job = await Drill.send(port: port, "POST", "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"after-restart"}"#, token: admin)
        let jobID = try #require(job?.object["id"] as? Int, "\(job?.body ?? "no answer")")
        let completed = await eventually(seconds: 30) {
            await Drill.send(port: port, "GET", "/v1/admin/jobs/\(jobID)", token: admin)?.object["state"] as? String == "completed"
        }
        #expect(completed, "a job enqueued after the restart did not complete within 30 s")

        let tally = load.tally.withLock { $0 }
        #expect(tally.unexpected.isEmpty, "answers other than 201 or a 503 problem with Retry-After: \(tally.unexpected.prefix(5))")
        #expect(tally.unanswered == 0, "requests that got no answer: \(load.summary)")
        let saved = await Drill.send(port: port, "GET", "/v1/me/schedules", token: student)
        let savedIDs = Set(((saved?.object["items"] as? [[String: Any]]) ?? []).compactMap { ($0["id"] as? Int).map(Int64.init) })
        #expect(tally.schedules.allSatisfy(savedIDs.contains), "an acknowledged schedule is missing")
        for id in tally.jobs {
            let kept = await Drill.send(port: port, "GET", "/v1/admin/jobs/\(id)", token: admin)
            #expect(kept?.status == 200, "acknowledged job \(id): \(kept?.status ?? 0)")
        }
        #expect(server.terminate() == 0, "the instance stops cleanly after the outage")
        print(
            "postgres drill: writes refused (503) \(refusedAfter) s after pg_ctl stop, \(tally.unavailable) refused in all; after the restart writes back in \(back.writesBack) s, "
                + "/readyz green in \(back.readyBack) s; \(tally.schedules.count + tally.jobs.count) writes acknowledged; \(load.summary)"
        )
    }
}
