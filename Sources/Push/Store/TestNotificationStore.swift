public import Contracts
public import Foundation
import Storage

/// When each student last sent a test notification, for its quota
/// (``SQLiteTestNotificationStore`` on SQLite).
public protocol TestNotificationStoring: Sendable {
    /// Logs a test queued for a device, and forgets the account's entries past the longest window.
    func record(accountID: Int64, deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// When the account's tests since `since` were asked for, with their devices.
    func tests(accountID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [(deviceID: Int64, at: Date)]
}
