public import Contracts
public import Foundation

/// Students' saved schedules, behind a protocol (``SQLiteSavedScheduleStore`` on SQLite). Every
/// read and write names the owning account, so one student never reaches another's schedule.
public protocol SavedScheduleStoring: Sendable {
    func insert(accountID: Int64, name: String, term: String, classIDs: [Int64], at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule
    func schedules(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SavedSchedule]
    func count(of accountID: Int64, in transaction: any StoreTransaction) throws -> Int
    func schedule(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> SavedSchedule?
    /// Renames and/or replaces the classes; nil when the schedule is not the account's.
    func update(id: Int64, of accountID: Int64, name: String?, classIDs: [Int64]?, at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule?
    /// Sets who sees the schedule; nil when the schedule is not the account's.
    func setVisibility(_ visibility: ScheduleVisibility, id: Int64, of accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> SavedSchedule?
    /// The friends-visible schedules of `ownerIDs` (of `term`, or every term), by owner then id.
    func friendsVisibleSchedules(of ownerIDs: [Int64], term: String?, in transaction: any StoreTransaction) throws -> [SavedSchedule]
    /// False when the schedule is not the account's.
    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
}
