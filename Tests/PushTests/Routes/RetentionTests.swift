import Foundation
import GatewayCore
import GRDB
import HTTPTypes
import Gradebook
import Jobs
import Push
@testable import SQLiteStores
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// Issue 20, High: nothing anonymous lives forever. QuickHAC devices that follow nobody, or
/// that stop registering, expire with their stored accounts; old notifications and unpolled
/// snapshots are deleted. The Push module with Gradebook's real module beside it (QuickHAC's
/// stored accounts, snapshots), against the gradebook simulator in this process.
@Suite("Retention of devices, notifications and snapshots")
struct RetentionTests {

    @Test func quickHACDevicesExpireWithTheirAccounts() async throws {
        try await PushGateway.withQuickHAC { gateway in try await Self.devicesExpire(gateway) }
    }

    static func devicesExpire(_ gateway: PushGateway) async throws {
        let clock = gateway.clock, database = gateway.database
        let accounts = try #require(gateway.gradebook).deviceAccounts
        let idle = "idle-\(UUID().uuidString)", following = "following-\(UUID().uuidString)", faithful = "faithful-\(UUID().uuidString)"
        try await gateway.withRouter { client async throws in
            for uuid in [idle, following, faithful] {
                #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
            }
            for uuid in [following, faithful] {
                #expect(try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1").0 == .ok)
                #expect(try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=jdoe&id=jdoe").0 == .ok)
            }
        }
        let retention = PushRetention(transactions: database, store: SQLiteRetentionStore(), devices: SQLiteDeviceStore(), accounts: accounts, clock: clock)
        #expect(try await retention.run().devices == 0, "nothing is old yet")

        clock.advance(by: 2 * 24 * 3600)
        #expect(try await retention.run().devices == 1, "the device that follows nobody")
        #expect(try await gateway.integer("SELECT COUNT(*) FROM push_devices WHERE uuid_hash IS NOT NULL") == 2)

        // The faithful app keeps registering at launch; the other one is gone for half a year.
        for _ in 0..<6 {
            clock.advance(by: 30 * 24 * 3600)
            try await gateway.withRouter { client async throws in
                #expect(try await client.quickHAC("/ios/register", "uuid=\(faithful)").1["status"] as? Int == 0)
            }
        }
        // The device unseen for 180 days is gone.
        _ = try await retention.run()
        #expect(try await gateway.integer("SELECT COUNT(*) FROM push_devices WHERE uuid_hash IS NOT NULL") == 1)
        #expect(try await gateway.integer("SELECT COUNT(*) FROM gradebook_device_accounts") == 1, "its stored account went with it")
        #expect(try await gateway.integer("SELECT COUNT(*) FROM push_device_students") == 1)
    }

    @Test func oldNotificationsAndUnpolledSnapshotsAreDeleted() async throws {
        try await PushGateway.withQuickHAC { gateway in try await Self.oldRowsGo(gateway) }
    }

    static func oldRowsGo(_ gateway: PushGateway) async throws {
        let clock = gateway.clock, database = gateway.database
        let gradebook = try #require(gateway.gradebook)
        let uuid = "device-\(UUID().uuidString)"
        try await gateway.withRouter { client async throws in
            #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
        }
        _ = try await gradebook.sources.create(GradebookSource(id: 9, name: "Elsewhere", baseURL: URL(string: "https://gradebook.example.edu/grades.json")!))
        let now = clock.now()
        try await database.pool.write { db in
            let device = try #require(try Int64.fetchOne(db, sql: "SELECT id FROM push_devices"))
            for (key, state, age) in [("old-delivered", "delivered", 31.0), ("old-failed", "failed", 40.0), ("old-pending", "pending", 40.0), ("recent", "delivered", 2.0)] {
                try db.execute(
                    sql: "INSERT INTO push_notifications (device_id, unique_key, category, title, body, state, created_at) VALUES (?, ?, 'test', 't', 'b', ?, ?)",
                    arguments: [device, key, state, now.addingTimeInterval(-age * 24 * 3600)]
                )
            }
            try db.execute(
                sql: "INSERT INTO gradebook_device_accounts (device_key, source_id, username, sealed_password, created_at, updated_at) VALUES ('k', 9, 'jdoe', '', ?, ?)",
                arguments: [now, now]
            )
            let account = db.lastInsertedRowID
            for (student, age) in [("jdoe", 31.0), ("asmith", 1.0)] {
                try db.execute(
                    sql: "INSERT INTO gradebook_snapshots (device_account_id, student, snapshot, digest, polled_at) VALUES (?, ?, '{}', 'd', ?)",
                    arguments: [account, student, now.addingTimeInterval(-age * 24 * 3600)]
                )
            }
        }
        let report = try await PushRetention(
            transactions: database, store: SQLiteRetentionStore(), devices: SQLiteDeviceStore(), accounts: gradebook.deviceAccounts, clock: clock
        ).run()
        #expect(report.notifications == 2)
        let keys = try await database.pool.read { db in try String.fetchAll(db, sql: "SELECT unique_key FROM push_notifications ORDER BY unique_key") }
        #expect(keys == ["old-pending", "recent"], "pending ones wait for delivery whatever their age")
        #expect(try await SnapshotRetention(transactions: database, snapshots: SQLiteSnapshotStore(), clock: clock).run() == 1)
        #expect(try await gateway.integer("SELECT COUNT(*) FROM gradebook_snapshots WHERE student = 'asmith'") == 1)
        // Both run on the job system's schedule.
        let kinds = gateway.jobs.registry.kinds
        #expect(kinds.contains("push.prune") && kinds.contains("gradebook.prune"))
    }
}
