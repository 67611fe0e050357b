import Auth
import Contracts
import Logging
import Foundation
import GatewayApp
import GatewayCore
import Gradebook
import GRDB
import HTTPTypes
import HummingbirdTesting
import Jobs
import NIOCore
import NIOFoundationEssentialsCompat
@testable import PostgresStores
import Push
@testable import SQLiteStores
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// End to end in demo mode: a QuickHAC device follows a student of the simulator (source 1);
/// a score posted in the simulator becomes exactly one notification, and polling again sends
/// none.
@Suite("Grade notifications end to end")
struct GradeNotificationTests {
    @Test func aNewScoreNotifiesOnce() async throws {
        let (app, directory, _) = try Self.demo()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "device-\(UUID().uuidString)"
        try await app.makeApplication().test(.live) { client async throws in
            #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
            #expect(try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1").0 == .ok)
            #expect(try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe").0 == .ok)

            // The first poll records the baseline and notifies nobody.
            #expect(try await GradeNotifications.enqueuePollsNow(app) == 1)
            try await Self.drain(app)
            #expect(try await Self.notifications(app) == 0)

            // A new score in the simulator: one notification, delivered.
            let posted = try await client.execute(
                uri: "/sim/gradebook/_admin/scores", method: .post,
                headers: [.authorization: "Bearer sim-admin-token-for-tests", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"term": 2152, "course": "458", "user": "jdoe", "assignment": 1, "score": 9.5, "displayScore": "9.5/10", "counts": true}"#)
            ) { $0.status }
            #expect(posted == .created)
            #expect(try await GradeNotifications.enqueuePollsNow(app, later: 1000) == 1)
            try await Self.drain(app)
            let rows = try await app.outbox.recent(state: nil, deviceIDs: nil, limit: 10)
            let jobs = try await app.database.pool.read { db in try Row.fetchAll(db, sql: "SELECT kind, state, errors FROM jobs ORDER BY id") }
            #expect(rows.count == 1, "\(jobs)")
            #expect(rows.first?.state == .delivered)
            #expect(rows.first?.notification.body.contains("9.5/10") == true)

            // Polling again finds nothing new.
            #expect(try await GradeNotifications.enqueuePollsNow(app, later: 2000) == 1)
            try await Self.drain(app)
            #expect(try await Self.notifications(app) == 1)
        }
    }

    @Test func aFailingSourceIsPausedAndShowsItsHealth() async throws {
        let (app, directory, clock) = try Self.demo()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "device-\(UUID().uuidString)"
        _ = try await app.accounts.createAccount(username: "root", email: nil, password: "correct horse battery", role: .admin)
        let token = try await app.accounts.issueToken(username: "root", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        let simulator: HTTPFields = [.authorization: "Bearer sim-admin-token-for-tests", .contentType: "application/json"]
        try await app.makeApplication().test(.live) { client async throws in
            #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
            #expect(try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1").0 == .ok)
            #expect(try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe").0 == .ok)
            let requests: @Sendable () async throws -> Int = {
                try await client.execute(uri: "/sim/gradebook/_admin/requests", method: .get, headers: simulator) { response in
                    let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    return object?["total"] as? Int ?? -1
                }
            }
            let health: @Sendable () async throws -> [String: Any] = {
                try await client.execute(uri: "/v1/admin/gradebook/sources/1", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    return object?["health"] as? [String: Any] ?? [:]
                }
            }
            #expect(try await health()["state"] as? String == "unknown")

            // The upstream fails: the poll records it and the source backs off.
            let fault = try await client.execute(
                uri: "/sim/gradebook/_admin/faults", method: .put, headers: simulator, body: ByteBuffer(string: #"{"mode": "error500"}"#)
            ) { $0.status }
            #expect(fault == .ok)
            #expect(try await GradeNotifications.enqueuePollsNow(app) == 1)
            try await Self.drain(app)
            let failing = try await health()
            #expect(failing["state"] as? String == "backing-off")
            #expect(failing["consecutiveFailures"] as? Int == 1)
            #expect((failing["lastError"] as? String)?.contains("failed") == true)
            #expect(failing["backoffUntil"] is String)

            // While it backs off, polls don't reach it.
            let before = try await requests()
            #expect(try await GradeNotifications.enqueuePollsNow(app, later: 1) == 1)
            try await Self.drain(app)
            #expect(try await requests() == before)

            // After the pause, with the upstream well again, one success clears it.
            let cleared = try await client.execute(
                uri: "/sim/gradebook/_admin/faults", method: .put, headers: simulator, body: ByteBuffer(string: #"{"mode": "none"}"#)
            ) { $0.status }
            #expect(cleared == .ok)
            clock.advance(by: 31)
            #expect(try await GradeNotifications.enqueuePollsNow(app, later: 2) == 1)
            try await Self.drain(app)
            let healthy = try await health()
            #expect(healthy["state"] as? String == "healthy")
            #expect(healthy["consecutiveFailures"] as? Int == 0)
        }
    }

    @Test func pollsAreQueuedOncePerSourceIntervalAtSpreadOffsets() async throws {
        let (app, directory, _) = try Self.demo()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.makeApplication().test(.live) { client async throws in
            for index in 0..<20 {
                let uuid = "device-\(index)-\(UUID().uuidString)"
                #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
                #expect(try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1").0 == .ok)
                #expect(try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe").0 == .ok)
            }
        }
        // The demo's source 1 polls every 300 s; the scheduler ticks every 60 s.
        let notifications = GradeNotifications(
            transactions: app.database, devices: SQLiteDeviceStore(), accounts: app.gradebookDeviceAccounts, ownedAccounts: app.gradebookAccounts,
            alerts: SQLiteGradeAlertStore(), preferences: SQLitePreferenceStore(), jobs: app.jobsRuntime.enqueuer, push: app.outbox, tick: 60
        )
        let windowStart = Date(timeIntervalSince1970: TimeInterval(1_800_000_000 - 1_800_000_000 % 300))
        #expect(try await notifications.enqueuePolls(now: windowStart.addingTimeInterval(30)) == 20, "the first tick of the window")
        #expect(try await notifications.enqueuePolls(now: windowStart.addingTimeInterval(90)) == 0, "later ticks of the window add none")
        #expect(try await notifications.enqueuePolls(now: windowStart.addingTimeInterval(30)) == 0, "a repeated tick adds none")
        let runAts = try await app.database.pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT run_at FROM jobs WHERE kind = 'gradebook.poll' ORDER BY run_at")
        }.map { Double($0) / 1000 - windowStart.timeIntervalSince1970 }
        #expect(runAts.count == 20)
        #expect(runAts.allSatisfy { $0 >= 30 && $0 < 300 }, "inside the window, none before the tick: \(runAts)")
        #expect(Set(runAts.map { Int($0) / 100 }).count == 3, "spread over the window, not bunched: \(runAts)")
        #expect(try await notifications.enqueuePolls(now: windowStart.addingTimeInterval(330)) == 20, "the next window")
        // After downtime the scheduler's next tick lands late in a later window, long after its
        // first minute: that window is still polled, once, and at once where its offsets passed.
        let late = windowStart.addingTimeInterval(1200 + 250)
        #expect(try await notifications.enqueuePolls(now: late) == 20, "a window whose first tick was missed")
        #expect(try await notifications.enqueuePolls(now: late.addingTimeInterval(10)) == 0, "once")
        let lateRunAts = try await app.database.pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT run_at FROM jobs WHERE kind = 'gradebook.poll' ORDER BY id DESC LIMIT 20")
        }.map { Double($0) / 1000 - windowStart.timeIntervalSince1970 }
        #expect(lateRunAts.allSatisfy { $0 >= 1450 && $0 < 1500 }, "none before the tick, none past the window: \(lateRunAts)")
        // An earlier time (a clock set back) queues nothing again.
        #expect(try await notifications.enqueuePolls(now: windowStart.addingTimeInterval(30)) == 0)
    }

    /// Works the polls, then the notifications they queued.
    static func drain(_ app: GatewayApplication) async throws {
        _ = try await app.runQueuedJobs(queue: GradebookJobs.queue)
        _ = try await app.runQueuedJobs(queue: PushJobs.queue)
    }

    /// A demo gateway (the simulator is source 1) on a manual clock, jobs drained by hand.
    static func demo() throws -> (GatewayApplication, URL, ManualClock) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.logLevel = .critical
        config.demo = true
        config.port = 0
        config.environment = [:]
        config.simulatorAdminToken = "sim-admin-token-for-tests"
        config.quickHACRequestsPerMinute = 1000 // one test registers 20 devices from one address
        config.jobs.workersEnabled = false
        let clock = ManualClock(Date())
        return (try GatewayApplication(configuration: config, clock: clock), directory, clock)
    }

    static func notifications(_ app: GatewayApplication) async throws -> Int {
        try await app.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_notifications") ?? 0 }
    }
}

extension GradeNotifications {
    /// Enqueues the polls of one interval, due now (tests drain them at once).
    static func enqueuePollsNow(_ app: GatewayApplication, later seconds: TimeInterval = 0) async throws -> Int {
        let now = Date().addingTimeInterval(seconds)
        return try await app.database.pool.write { db in
            var count = 0
            for (account, student) in try SQLiteDeviceStore().followedStudents(in: db) {
                try app.jobsRuntime.enqueuer.enqueue(
                    try NewJob(GradebookJobs.poll, GradebookJobs.Poll(deviceAccountId: account, student: student), uniqueKey: "test-poll:\(account):\(student):\(now.timeIntervalSince1970)"),
                    in: db, now: app.clock.now()
                )
                count += 1
            }
            return count
        }
    }
}
