public import Contracts
public import Foundation
import GRDB
import Storage

/// A student's watch on a class.
public struct SeatAlert: Sendable, Equatable {
    public var id: Int64
    public var accountID: Int64
    public var classID: Int64
    /// Tell the student every time a seat opens, not only the first.
    public var rearm: Bool
    public var armed: Bool
    public var createdAt: Date
    public var lastNotifiedAt: Date?
}

/// Seat alerts on SQLite.
public struct SQLiteSeatAlertStore: Sendable {
    public init() {}

    func insert(accountID: Int64, classID: Int64, rearm: Bool, at now: Date, in transaction: any StoreTransaction) throws -> (SeatAlert, Bool) {
        let db = try transaction.sqlite()
        if let existing = try alert(accountID: accountID, classID: classID, in: transaction) {
            try db.execute(sql: "UPDATE push_seat_alerts SET rearm = ?, armed = 1 WHERE id = ?", arguments: [rearm, existing.id])
            return (try alert(accountID: accountID, classID: classID, in: transaction) ?? existing, false)
        }
        try db.execute(
            sql: "INSERT INTO push_seat_alerts (account_id, class_id, rearm, created_at) VALUES (?, ?, ?, ?)",
            arguments: [accountID, classID, rearm, now]
        )
        return (SeatAlert(id: db.lastInsertedRowID, accountID: accountID, classID: classID, rearm: rearm, armed: true, createdAt: now), true)
    }

    func alert(accountID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> SeatAlert? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_seat_alerts WHERE account_id = ? AND class_id = ?", arguments: [accountID, classID]).map(Self.alert)
    }

    func alerts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM push_seat_alerts WHERE account_id = ? ORDER BY id", arguments: [accountID]).map(Self.alert)
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_seat_alerts WHERE id = ? AND account_id = ?", arguments: [id, accountID])
        return db.changesCount > 0
    }

    /// The armed alerts of a class; each is disarmed (unless it re-arms) as it is returned.
    func fire(classID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let db = try transaction.sqlite()
        let armed = try Row.fetchAll(db, sql: "SELECT * FROM push_seat_alerts WHERE class_id = ? AND armed = 1 ORDER BY id", arguments: [classID]).map(Self.alert)
        try db.execute(
            sql: "UPDATE push_seat_alerts SET last_notified_at = ?, armed = CASE WHEN rearm = 1 THEN 1 ELSE 0 END WHERE class_id = ? AND armed = 1",
            arguments: [now, classID]
        )
        return armed
    }

    static func alert(_ row: Row) -> SeatAlert {
        SeatAlert(
            id: row["id"], accountID: row["account_id"], classID: row["class_id"], rearm: row["rearm"], armed: row["armed"],
            createdAt: row["created_at"], lastNotifiedAt: row["last_notified_at"]
        )
    }
}
