public import Contracts
public import Foundation
import Storage

/// The last grade snapshot of each polled account, the base of the next poll's diff
/// (``SQLiteSnapshotStore`` on SQLite).
public protocol SnapshotStoring: Sendable {
    /// The stored snapshot, if any (an unreadable one counts as none).
    func snapshot(deviceAccountID: Int64, student: String, in transaction: any StoreTransaction) throws -> GradebookSnapshot?
    func save(_ snapshot: GradebookSnapshot, deviceAccountID: Int64, student: String, at now: Date, in transaction: any StoreTransaction) throws
    /// The stored snapshot of a student's own account (`gradebook.poll-account`), if any.
    func snapshot(gradebookAccountID: Int64, in transaction: any StoreTransaction) throws -> GradebookSnapshot?
    func save(_ snapshot: GradebookSnapshot, gradebookAccountID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Deletes snapshots (of device accounts' students and of students' own accounts) last
    /// polled before `cutoff`: nobody polls them any more. How many.
    func prune(polledBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int
}
