import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// The log of test notifications asked for on PostgreSQL (`push_test_notifications`), which
/// ``TestNotificationQuota`` counts: in the database, so the limits survive a restart and hold
/// across every instance sharing it.
struct PostgresTestNotificationStore: TestNotificationStoring {
    init() {}

    /// Logs a test queued for a device, and forgets the account's entries past the longest window.
    func record(accountID: Int64, deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        let horizon = now.addingTimeInterval(-max(TestNotificationQuota.deviceWindow, TestNotificationQuota.accountWindow))
        try transaction.execute("DELETE FROM push_test_notifications WHERE account_id = \(accountID) AND requested_at <= \(horizon)")
        try transaction.execute(
            "INSERT INTO push_test_notifications (account_id, device_id, requested_at) VALUES (\(accountID), \(deviceID), \(now))"
        )
    }

    /// When the account's tests since `since` were asked for, with their devices.
    func tests(accountID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [(deviceID: Int64, at: Date)] {
        try transaction.postgres().query("""
            SELECT device_id, requested_at FROM push_test_notifications WHERE account_id = \(accountID) AND requested_at > \(since)
            ORDER BY requested_at, id
            """).map { row in
            let (deviceID, at) = try row.decode((Int64, Date).self)
            return (deviceID, at)
        }
    }
}
