public import Contracts
public import Foundation

/// Share links of saved schedules (``ShareLink``), behind a protocol: tokens kept as their
/// SHA-256 only. Every use but the lookup by token names the owner, so another student's
/// schedule has no links to list or revoke. Deleting a schedule deletes its links.
public protocol ShareLinkStoring: Sendable {
    /// Stores a new link of the schedule. The caller has checked, in the same transaction, that
    /// the schedule belongs to `accountID` and has room for another live link.
    func insert(scheduleID: Int64, accountID: Int64, tokenHash: Data, at now: Date, expiresAt: Date?, in transaction: any StoreTransaction) throws -> ShareLink
    /// The schedule's links that are live at `now`, oldest first.
    func liveLinks(scheduleID: Int64, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [ShareLink]
    /// Deletes one of the schedule's links; false when there is no such link of the account's.
    func delete(id: Int64, scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Deletes the schedule's links that expired at or before `now`; how many there were.
    func deleteExpired(scheduleID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> Int
    /// The schedule and owner of the link with this token hash, if it is live at `now`.
    func target(tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws -> (scheduleID: Int64, accountID: Int64)?
}
