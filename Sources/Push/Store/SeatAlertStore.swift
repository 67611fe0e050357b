public import Contracts
public import Foundation

/// Seat alerts and the open events each was told about, behind a protocol:
/// ``SQLiteSeatAlertStore`` on SQLite. Every method runs inside the caller's transaction.
public protocol SeatAlertStoring: Sendable {
    /// Creates a watch, or updates the options of the caller's existing watch on the same
    /// target and arms it again; true when new.
    func upsert(
        accountID: Int64, target: SeatAlert.Target, rearm: Bool, notifyClosed: Bool, at now: Date, in transaction: any StoreTransaction
    ) throws -> (SeatAlert, created: Bool)
    func alert(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> SeatAlert?
    func alert(accountID: Int64, target: SeatAlert.Target, in transaction: any StoreTransaction) throws -> SeatAlert?
    func alerts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert]
    func count(of accountID: Int64, in transaction: any StoreTransaction) throws -> Int
    /// Deletes one of the account's alerts; false when it has no such alert.
    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Stops one of the account's alerts (from an email's unsubscribe link); false when none.
    func disarm(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// An open event's candidates: the armed alerts watching the class `label` names or its
    /// course, by id.
    func armedWatchers(of label: ClassLabel, in transaction: any StoreTransaction) throws -> [SeatAlert]
    /// Records that the alert was told `classID` opened: armed afterwards only if `staysArmed`,
    /// remembered for the close, and its told time kept for the flap limit, with the told times
    /// at or before `forgettingToldBefore` deleted. Conditional on the alert still being armed:
    /// false, and nothing changed, when it is not (another open event told it first). What
    /// re-arms and how long a told time counts are the service's rules, not the store's.
    func markTold(
        alertID: Int64, classID: Int64, at now: Date, staysArmed: Bool, forgettingToldBefore horizon: Date,
        in transaction: any StoreTransaction
    ) throws -> Bool
    /// When the alert was told `classID` opened, after `since` (older records are forgotten).
    func toldTimes(alertID: Int64, classID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [Date]
    /// The class closed: the alerts that were told it opened (their record is cleared, so a
    /// re-arming alert hears the next opening).
    func fireClosed(classID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert]
}
