public import Contracts
public import Foundation

/// Subscription feeds of saved schedules, behind a protocol (``SQLiteScheduleFeedStore`` on
/// SQLite): at most one per schedule, its token stored as its SHA-256 only. Every use but the
/// lookup by token names the owner, so another student's schedule has no feed to read or revoke.
public protocol ScheduleFeedStoring: Sendable {
    /// Sets the schedule's feed token (replacing, and so revoking, any earlier one). The caller
    /// has checked that the schedule belongs to `accountID` in the same transaction.
    func setFeed(scheduleID: Int64, accountID: Int64, tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws
    /// Removes the schedule's feed; false when it had none (or is not the account's).
    func deleteFeed(scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// When the schedule's feed was created; nil without one.
    func feedCreatedAt(scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Date?
    /// Removes every schedule feed of the account; how many there were.
    func deleteFeeds(accountID: Int64, in transaction: any StoreTransaction) throws -> Int
    /// The schedule and its owner whose feed has this token hash.
    func feedTarget(tokenHash: Data, in transaction: any StoreTransaction) throws -> (scheduleID: Int64, accountID: Int64)?
}
