public import Contracts
public import Foundation

/// What grade alerts for students' own gradebook accounts keep, behind a protocol
/// (``SQLiteGradeAlertStore``): per-account preferences and the poll window last queued for
/// each account. Every method runs inside the caller's transaction.
public protocol GradeAlertStoring: Sendable {
    /// Gateway accounts with at least one active device.
    func accountsWithActiveDevices(in transaction: any StoreTransaction) throws -> [Int64]
    /// The stored preferences of some gradebook accounts; missing ones have none (all on).
    func preferences(of gradebookAccountIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: GradebookAlertPreference]
    func save(_ preference: GradebookAlertPreference, ownerAccountID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Claims an account's poll window: true when it was not queued yet.
    func claimPollWindow(gradebookAccountID: Int64, windowStart: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Forgets the windows of accounts no longer polled.
    func forgetPollWindows(keeping gradebookAccountIDs: Set<Int64>, in transaction: any StoreTransaction) throws
}
