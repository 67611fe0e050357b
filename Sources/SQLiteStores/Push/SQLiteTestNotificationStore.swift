import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// The log of test notifications asked for (`push_test_notifications`), which
/// ``TestNotificationQuota`` counts. In the database rather than in memory, so the limits
/// survive a restart and hold across instances sharing the database, as the confirmation-mail
/// limits do. Parameterised SQL only.
struct SQLiteTestNotificationStore: TestNotificationStoring {
    init() {}

    /// Logs a test queued for a device, and forgets the account's entries past the longest window.
    func record(accountID: Int64, deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let horizon = max(TestNotificationQuota.deviceWindow, TestNotificationQuota.accountWindow)
        try db.execute(
            sql: "DELETE FROM push_test_notifications WHERE account_id = ? AND requested_at <= ?",
            arguments: [accountID, now.addingTimeInterval(-horizon)]
        )
        try db.execute(
            sql: "INSERT INTO push_test_notifications (account_id, device_id, requested_at) VALUES (?, ?, ?)",
            arguments: [accountID, deviceID, now]
        )
    }

    /// When the account's tests since `since` were asked for, with their devices.
    func tests(accountID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [(deviceID: Int64, at: Date)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db,
            sql: "SELECT device_id, requested_at FROM push_test_notifications WHERE account_id = ? AND requested_at > ? ORDER BY requested_at",
            arguments: [accountID, since]
        ).map { ($0["device_id"], $0["requested_at"]) }
    }
}
