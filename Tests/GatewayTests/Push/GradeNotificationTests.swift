import Auth
import Contracts
import Logging
import Foundation
import GatewayApp
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
import Jobs
import NIOCore
import Push
import Storage
import Testing

/// End to end in demo mode: a QuickHAC device follows a student of the simulator (source 1);
/// a score posted in the simulator becomes exactly one notification, and polling again sends
/// none.
@Suite("Grade notifications end to end")
struct GradeNotificationTests {
    @Test func aNewScoreNotifiesOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.logLevel = .critical
        config.demo = true
        config.port = 0
        config.environment = [:]
        config.simulatorAdminToken = "sim-admin-token-for-tests"
        config.jobs.workersEnabled = false
        let app = try GatewayApplication(configuration: config, clock: ManualClock(Date()))
        let uuid = "device-\(UUID().uuidString)"
        try await app.makeApplication().test(.live) { client async throws in
            #expect(try await QuickHACTests.post(client, "/ios/register", "uuid=\(uuid)").0 == .ok)
            #expect(try await QuickHACTests.post(client, "/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1").0 == .ok)
            #expect(try await QuickHACTests.post(client, "/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe").0 == .ok)

            // The first poll records the baseline and notifies nobody.
            #expect(try await GradeNotifications.enqueuePollsNow(app) == 1)
            _ = try await app.jobs.pool.drain(queue: PushJobs.queue)
            #expect(try await Self.notifications(app) == 0)

            // A new score in the simulator: one notification, delivered.
            let posted = try await client.execute(
                uri: "/sim/gradebook/_admin/scores", method: .post,
                headers: [.authorization: "Bearer sim-admin-token-for-tests", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"term": 2152, "course": "458", "user": "jdoe", "assignment": 1, "score": 9.5, "displayScore": "9.5/10", "counts": true}"#)
            ) { $0.status }
            #expect(posted == .created)
            #expect(try await GradeNotifications.enqueuePollsNow(app, later: 1000) == 1)
            _ = try await app.jobs.pool.drain(queue: PushJobs.queue)
            let rows = try await app.push.recent(state: nil, deviceIDs: nil, limit: 10)
            let jobs = try await app.database.pool.read { db in try Row.fetchAll(db, sql: "SELECT kind, state, errors FROM jobs ORDER BY id") }
            #expect(rows.count == 1, "\(jobs)")
            #expect(rows.first?.state == .delivered)
            #expect(rows.first?.notification.body.contains("9.5/10") == true)

            // Polling again finds nothing new.
            #expect(try await GradeNotifications.enqueuePollsNow(app, later: 2000) == 1)
            _ = try await app.jobs.pool.drain(queue: PushJobs.queue)
            #expect(try await Self.notifications(app) == 1)
        }
    }

    static func notifications(_ app: GatewayApplication) async throws -> Int {
        try await app.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_notifications") ?? 0 }
    }
}

extension GradeNotifications {
    /// Enqueues the polls of one interval, due now (tests drain them at once).
    static func enqueuePollsNow(_ app: GatewayApplication, later seconds: TimeInterval = 0) async throws -> Int {
        let now = Date().addingTimeInterval(seconds)
        let notifications = GradeNotifications(transactions: app.database, jobs: SQLiteJobEnqueuer(), push: app.push, interval: 60)
        return try await app.database.pool.write { db in
            var count = 0
            for (account, student) in try SQLiteDeviceStore().followedStudents(in: db) {
                _ = notifications
                try SQLiteJobEnqueuer().enqueue(
                    try NewJob(GradebookJobs.poll, GradebookJobs.Poll(deviceAccountId: account, student: student), uniqueKey: "test-poll:\(account):\(student):\(now.timeIntervalSince1970)"),
                    in: db, now: app.clock.now()
                )
                count += 1
            }
            return count
        }
    }
}
