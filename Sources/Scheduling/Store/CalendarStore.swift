public import Contracts
public import Foundation

/// Calendar subscription feeds and exported calendars' revisions, behind a protocol
/// (``SQLiteCalendarStore`` on SQLite). Feed tokens are stored as their SHA-256 only.
public protocol CalendarStoring: Sendable {
    /// Sets the account's feed token (replacing, and so revoking, any earlier one).
    func setFeed(accountID: Int64, tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws
    /// Removes the account's feed; false when it had none.
    func deleteFeed(accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// When the account's feed was created; nil without one.
    func feedCreatedAt(accountID: Int64, in transaction: any StoreTransaction) throws -> Date?
    /// The account whose feed has this token hash.
    func feedOwner(tokenHash: Data, in transaction: any StoreTransaction) throws -> Int64?
    /// Records what a calendar contains now and returns its revision: unchanged content keeps
    /// the stored revision; changed content bumps the sequence and the change time.
    func revision(of calendar: String, contentHash: String, at now: Date, in transaction: any StoreTransaction) throws -> CalendarRevision
    /// Forgets a calendar's revision (its schedule was deleted).
    func forget(calendar: String, in transaction: any StoreTransaction) throws
}
