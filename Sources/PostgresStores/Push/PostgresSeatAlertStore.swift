import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// ``SeatAlertStoring`` on PostgreSQL: `push_seat_alerts` and `push_seat_alert_openings`, with
/// the rules of ``SQLiteSeatAlertStore``. A watch is unique per account and target (partial
/// unique indexes), so two instances creating the same watch at once can't both succeed: the
/// later unit is aborted as a serialization failure and run again, and then finds the watch.
struct PostgresSeatAlertStore: SeatAlertStoring {
    init() {}

    static let columns = "id, account_id, class_id, term, subject, course_number, rearm, notify_closed, armed, created_at, last_notified_at"

    func upsert(
        accountID: Int64, target: SeatAlert.Target, rearm: Bool, notifyClosed: Bool, at now: Date, in transaction: any StoreTransaction
    ) throws -> (SeatAlert, created: Bool) {
        let postgres = try transaction.postgres()
        if let existing = try alert(accountID: accountID, target: target, in: transaction) {
            try postgres.execute("UPDATE push_seat_alerts SET rearm = \(rearm), notify_closed = \(notifyClosed), armed = true WHERE id = \(existing.id)")
            var updated = existing
            (updated.rearm, updated.notifyClosed, updated.armed) = (rearm, notifyClosed, true)
            return (updated, false)
        }
        let (classID, course) = Self.columns(of: target)
        let id = try postgres.query("""
            INSERT INTO push_seat_alerts (account_id, class_id, term, subject, course_number, rearm, notify_closed, created_at)
            VALUES (\(accountID), \(classID), \(course?.term), \(course?.subject), \(course?.courseNumber), \(rearm), \(notifyClosed), \(now))
            RETURNING id
            """).first!.decode(Int64.self)
        let alert = SeatAlert(id: id, accountID: accountID, target: target, rearm: rearm, notifyClosed: notifyClosed, armed: true, createdAt: now)
        return (alert, true)
    }

    func alert(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> SeatAlert? {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM push_seat_alerts WHERE id = \(id) AND account_id = \(accountID)"
        ).first.map(Self.alert)
    }

    func alert(accountID: Int64, target: SeatAlert.Target, in transaction: any StoreTransaction) throws -> SeatAlert? {
        let transaction = try transaction.postgres()
        switch target {
        case .classID(let classID):
            return try transaction.query(
                "SELECT \(unescaped: Self.columns) FROM push_seat_alerts WHERE account_id = \(accountID) AND class_id = \(classID)"
            ).first.map(Self.alert)
        case .course(let course):
            return try transaction.query("""
                SELECT \(unescaped: Self.columns) FROM push_seat_alerts
                WHERE account_id = \(accountID) AND class_id IS NULL AND term = \(course.term) AND subject = \(course.subject)
                    AND course_number = \(course.courseNumber)
                """).first.map(Self.alert)
        }
    }

    func alerts(of accountID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.columns) FROM push_seat_alerts WHERE account_id = \(accountID) ORDER BY id"
        ).map(Self.alert)
    }

    func count(of accountID: Int64, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM push_seat_alerts WHERE account_id = \(accountID)").first?.decode(Int.self) ?? 0
    }

    func delete(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM push_seat_alerts WHERE id = \(id) AND account_id = \(accountID)") > 0
    }

    func disarm(id: Int64, of accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "UPDATE push_seat_alerts SET armed = false, rearm = false WHERE id = \(id) AND account_id = \(accountID)"
        ) > 0
    }

    func armedWatchers(of label: ClassLabel, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let course = label.courseKey
        return try transaction.postgres().query("""
            SELECT \(unescaped: Self.columns) FROM push_seat_alerts
            WHERE armed AND (class_id = \(label.classId)
                OR (class_id IS NULL AND term = \(course.term) AND subject = \(course.subject) AND course_number = \(course.courseNumber)))
            ORDER BY id
            """).map(Self.alert)
    }

    func markTold(
        alertID: Int64, classID: Int64, at now: Date, staysArmed: Bool, forgettingToldBefore horizon: Date,
        in transaction: any StoreTransaction
    ) throws -> Bool {
        let transaction = try transaction.postgres()
        let changed = try transaction.execute(
            "UPDATE push_seat_alerts SET last_notified_at = \(now), armed = \(staysArmed) WHERE id = \(alertID) AND armed"
        )
        guard changed == 1 else { return false }
        try transaction.execute("""
            INSERT INTO push_seat_alert_openings (alert_id, class_id, notified_at) VALUES (\(alertID), \(classID), \(now))
            ON CONFLICT DO NOTHING
            """)
        try transaction.execute(
            "DELETE FROM push_seat_alert_tells WHERE alert_id = \(alertID) AND class_id = \(classID) AND told_at <= \(horizon)"
        )
        try transaction.execute("INSERT INTO push_seat_alert_tells (alert_id, class_id, told_at) VALUES (\(alertID), \(classID), \(now))")
        return true
    }

    func toldTimes(alertID: Int64, classID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [Date] {
        try transaction.postgres().query("""
            SELECT told_at FROM push_seat_alert_tells
            WHERE alert_id = \(alertID) AND class_id = \(classID) AND told_at > \(since) ORDER BY told_at
            """).map { try $0.decode(Date.self) }
    }

    func fireClosed(classID: Int64, in transaction: any StoreTransaction) throws -> [SeatAlert] {
        let transaction = try transaction.postgres()
        let told = try transaction.query("""
            SELECT \(unescaped: Self.columns) FROM push_seat_alerts
            WHERE id IN (SELECT alert_id FROM push_seat_alert_openings WHERE class_id = \(classID)) ORDER BY id
            """).map(Self.alert)
        try transaction.execute("DELETE FROM push_seat_alert_openings WHERE class_id = \(classID)")
        return told
    }

    static func columns(of target: SeatAlert.Target) -> (Int64?, CourseKey?) {
        switch target {
        case .classID(let id): (id, nil)
        case .course(let course): (nil, course)
        }
    }

    /// An alert from a row of ``columns``.
    static func alert(_ row: PostgresRow) throws -> SeatAlert {
        let (id, accountID, classID, term, subject, courseNumber, rearm, notifyClosed, armed, createdAt, lastNotifiedAt) = try row.decode(
            (Int64, Int64, Int64?, String?, String?, String?, Bool, Bool, Bool, Date, Date?).self
        )
        let target: SeatAlert.Target
        if let classID {
            target = .classID(classID)
        } else {
            target = .course(CourseKey(term: term ?? "", subject: subject ?? "", courseNumber: courseNumber ?? ""))
        }
        return SeatAlert(
            id: id, accountID: accountID, target: target, rearm: rearm, notifyClosed: notifyClosed, armed: armed, createdAt: createdAt,
            lastNotifiedAt: lastNotifiedAt
        )
    }
}
