public import Contracts
public import Foundation
import Storage

/// Email addresses waiting for their confirmation code, mails sent (for the hourly quota) and
/// one-click unsubscribe tokens (``SQLiteEmailStore`` on SQLite).
public protocol EmailStoring: Sendable {
    /// Replaces the device's pending confirmation (only the latest mail's code and link work).
    func savePending(_ pending: PendingEmailConfirmation, at now: Date, in transaction: any StoreTransaction) throws
    func pending(deviceID: Int64, in transaction: any StoreTransaction) throws -> PendingEmailConfirmation?
    func pending(tokenHash: Data, in transaction: any StoreTransaction) throws -> PendingEmailConfirmation?
    func recordWrongCode(deviceID: Int64, in transaction: any StoreTransaction) throws
    func deletePending(deviceID: Int64, in transaction: any StoreTransaction) throws
    /// Logs a confirmation mail asked for, and forgets the account's entries past the window.
    func recordMail(accountID: Int64, deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// When the account's confirmation mails since `since` were asked for, with their devices.
    func mails(accountID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [(deviceID: Int64, at: Date)]
    /// Stores an unsubscribe link's hash and target; forgets the device's links past their lifetime.
    func insertUnsubscribe(tokenHash: Data, target: UnsubscribeTarget, at now: Date, in transaction: any StoreTransaction) throws
    func unsubscribe(tokenHash: Data, in transaction: any StoreTransaction) throws -> StoredUnsubscribe?
    /// Records the link's first use (later uses keep the first time).
    func markUsed(tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws
}
