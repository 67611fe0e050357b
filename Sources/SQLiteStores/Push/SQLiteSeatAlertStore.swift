import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// ``SeatAlertStoring`` on SQLite: `push_seat_alerts` and `push_seat_alert_openings`.
struct SQLiteSeatAlertStore: SeatAlertStoring {
    init() {}

    private enum Column {
        static let all = "id, account_id, class_id, term, subject, course_number, rearm, notify_closed, armed, created_at, last_notified_at"
    }

    func upsert(
        accountID: Int64, target: SeatAlert.Target, rearm: Bool, notifyClosed: Bool, at now: Date, in transaction: any StoreTransaction
    ) throws -> (SeatAlert, created: Bool) {
        let db = try transaction.sqlite()
        if let existing = try alert(accountID: accountID, target: target, in: transaction) {
            try db.execute(
                sql: "UPDATE push_seat_alerts SET rearm = ?, notify_closed = ?, armed = 1 WHERE id = ?",
                arguments: [rearm, notifyClosed, existing.id]
            )
            var updated = existing
            (updated.rearm, updated.notifyClosed, updated.armed) = (rearm, notifyClosed, true)
            return (updated, false)
        }
        let (classID, course) = Self.columns(of: target)
        try db.execute(
            sql: """
                INSERT INTO push_seat_alerts (account_id, class_id, term, subject, course_number, rearm, notify_closed, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [accountID, classID, course?.term, course?.subject, course?.courseNumber, rearm, notifyClosed, now]
        )
        let alert = SeatAlert(
            id: db.lastInsertedRowID, accountID: accountID, target: target, rearm: rearm, notifyClosed: notifyClosed, armed: true, createdAt: now
        )
        return (alert, true)
    }

    func alert(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> SeatAlert? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT \(Column.all) FROM push_seat_alerts WHERE id = ? AND account_id = ?", arguments: [id, accountID])
            .map(Self.alert)
    }

    func alert(accountID: Int64, target: SeatAlert.Target, in transaction: any StoreTransaction) throws -> SeatAlert? {
        let db = try transaction.sqlite()
        switch target {
        case .classID(let classID):
            return try Row.fetchOne(
                db, sql: "SELECT \(Column.all) FROM push_seat_alerts WHERE account_id = ? AND class_id = ?", arguments: [accountID, classID]
            ).map(Self.alert)
        case .course(let course):
            return try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Column.all) FROM push_seat_alerts
                    WHERE account_id = ? AND class_id IS NULL AND term = ? AND subject = ? AND course_number = ?
                    """,
                arguments: [accountID, course.term, course.subject, course.courseNumber]
            ).map(Self.alert)
        }
    }

    func alerts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT \(Column.all) FROM push_seat_alerts WHERE account_id = ? ORDER BY id", arguments: [accountID])
            .map(Self.alert)
    }

    func count(of accountID: Int64, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_seat_alerts WHERE account_id = ?", arguments: [accountID]) ?? 0
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_seat_alerts WHERE id = ? AND account_id = ?", arguments: [id, accountID])
        return db.changesCount > 0
    }

    func disarm(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_seat_alerts SET armed = 0, rearm = 0 WHERE id = ? AND account_id = ?", arguments: [id, accountID])
        return db.changesCount > 0
    }

    func armedWatchers(of label: ClassLabel, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let db = try transaction.sqlite()
        let course = label.courseKey
        return try Row.fetchAll(
            db,
            sql: """
                SELECT \(Column.all) FROM push_seat_alerts
                WHERE armed = 1 AND (class_id = ? OR (class_id IS NULL AND term = ? AND subject = ? AND course_number = ?))
                ORDER BY id
                """,
            arguments: [label.classId, course.term, course.subject, course.courseNumber]
        ).map(Self.alert)
    }

    func markTold(
        alertID: Int64, classID: Int64, at now: Date, staysArmed: Bool, forgettingToldBefore horizon: Date,
        in transaction: any StoreTransaction
    ) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_seat_alerts SET last_notified_at = ?, armed = ? WHERE id = ? AND armed = 1", arguments: [now, staysArmed, alertID])
        guard db.changesCount == 1 else { return false }
        try db.execute(
            sql: "INSERT INTO push_seat_alert_openings (alert_id, class_id, notified_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            arguments: [alertID, classID, now]
        )
        try db.execute(
            sql: "DELETE FROM push_seat_alert_tells WHERE alert_id = ? AND class_id = ? AND told_at <= ?",
            arguments: [alertID, classID, horizon]
        )
        try db.execute(sql: "INSERT INTO push_seat_alert_tells (alert_id, class_id, told_at) VALUES (?, ?, ?)", arguments: [alertID, classID, now])
        return true
    }

    func toldTimes(alertID: Int64, classID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [Date] {
        let db = try transaction.sqlite()
        return try Date.fetchAll(
            db, sql: "SELECT told_at FROM push_seat_alert_tells WHERE alert_id = ? AND class_id = ? AND told_at > ? ORDER BY told_at",
            arguments: [alertID, classID, since]
        )
    }

    func fireClosed(classID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let db = try transaction.sqlite()
        let told = try Row.fetchAll(
            db,
            sql: """
                SELECT \(Column.all) FROM push_seat_alerts
                WHERE id IN (SELECT alert_id FROM push_seat_alert_openings WHERE class_id = ?) ORDER BY id
                """,
            arguments: [classID]
        ).map(Self.alert)
        try db.execute(sql: "DELETE FROM push_seat_alert_openings WHERE class_id = ?", arguments: [classID])
        return told
    }

    static func columns(of target: SeatAlert.Target) -> (Int64?, CourseKey?) {
        switch target {
        case .classID(let id): (id, nil)
        case .course(let course): (nil, course)
        }
    }

    static func alert(_ row: Row) -> SeatAlert {
        let target: SeatAlert.Target
        if let classID: Int64 = row["class_id"] {
            target = .classID(classID)
        } else {
            target = .course(CourseKey(term: row["term"], subject: row["subject"], courseNumber: row["course_number"]))
        }
        return SeatAlert(
            id: row["id"], accountID: row["account_id"], target: target, rearm: row["rearm"], notifyClosed: row["notify_closed"],
            armed: row["armed"], createdAt: row["created_at"], lastNotifiedAt: row["last_notified_at"]
        )
    }
}
