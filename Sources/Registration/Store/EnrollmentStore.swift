public import Foundation
public import GRDB
public import Catalog

/// An open offer of a held seat to a waitlisted student.
public struct SeatOffer: Sendable, Equatable, Codable {
    public var id: Int64
    public var classID: Int64
    public var studentID: Int64
    public var offeredAt: Date
    public var expiresAt: Date
}

/// A student's place in one class's waitlist.
public struct WaitlistPlace: Sendable, Equatable, Codable {
    public var classID: Int64
    /// 1 for the first in line.
    public var position: Int
    public var joinedAt: Date
}

/// An enrollment of a student in a class.
public struct Enrollment: Sendable, Equatable, Codable {
    public var classID: Int64
    public var enrolledAt: Date
}

/// SQL for enrollments, waitlists and offers. Every function runs inside the caller's
/// transaction; the service wraps each use case in one write transaction.
public enum EnrollmentStore {
    // MARK: Enrollments

    /// The classes a student is enrolled in, by class id.
    public static func enrollments(of studentID: Int64, in db: Database) throws -> [Enrollment] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT class_id, enrolled_at FROM registration_enrollments WHERE student_id = ? ORDER BY class_id"),
            arguments: [studentID]
        ).map { Enrollment(classID: $0["class_id"], enrolledAt: $0["enrolled_at"]) }
    }

    public static func isEnrolled(studentID: Int64, classID: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_enrollments WHERE student_id = ? AND class_id = ?)"),
            arguments: [studentID, classID]
        ) ?? false
    }

    public static func enroll(studentID: Int64, classID: Int64, at now: Date, in db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (?, ?, ?)")
            .execute(arguments: [studentID, classID, now])
        try SeatLedger.adjust(classID: classID, enrolled: 1, in: db)
    }

    /// Removes an enrollment; false when there was none.
    public static func drop(studentID: Int64, classID: Int64, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM registration_enrollments WHERE student_id = ? AND class_id = ?")
            .execute(arguments: [studentID, classID])
        guard db.changesCount > 0 else { return false }
        try SeatLedger.adjust(classID: classID, enrolled: -1, in: db)
        return true
    }

    // MARK: Waitlists

    /// The student's waitlist places, with positions counted among the gateway's entries.
    public static func waitlistPlaces(of studentID: Int64, in db: Database) throws -> [WaitlistPlace] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT w.class_id, w.joined_at,
                       (SELECT COUNT(*) FROM registration_waitlist o WHERE o.class_id = w.class_id AND o.id <= w.id) AS position
                FROM registration_waitlist w WHERE w.student_id = ? ORDER BY w.class_id
                """),
            arguments: [studentID]
        ).map { WaitlistPlace(classID: $0["class_id"], position: $0["position"], joinedAt: $0["joined_at"]) }
    }

    /// How many waitlists the student is on.
    public static func waitlistCount(of studentID: Int64, in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_waitlist WHERE student_id = ?"), arguments: [studentID]) ?? 0
    }

    public static func isWaitlisted(studentID: Int64, classID: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_waitlist WHERE student_id = ? AND class_id = ?)"),
            arguments: [studentID, classID]
        ) ?? false
    }

    /// Adds the student at the end of the line and returns their position.
    public static func joinWaitlist(studentID: Int64, classID: Int64, at now: Date, in db: Database) throws -> Int {
        try db.cachedStatement(sql: "INSERT INTO registration_waitlist (student_id, class_id, joined_at) VALUES (?, ?, ?)")
            .execute(arguments: [studentID, classID, now])
        let entry = db.lastInsertedRowID
        try SeatLedger.adjust(classID: classID, waitlist: 1, in: db)
        return try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_waitlist WHERE class_id = ? AND id <= ?"),
            arguments: [classID, entry]
        ) ?? 1
    }

    /// Removes the student from the line; false when they were not in it.
    public static func leaveWaitlist(studentID: Int64, classID: Int64, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM registration_waitlist WHERE student_id = ? AND class_id = ?")
            .execute(arguments: [studentID, classID])
        guard db.changesCount > 0 else { return false }
        try SeatLedger.adjust(classID: classID, waitlist: -1, in: db)
        return true
    }

    /// The line for a class: student ids, first in line first.
    public static func line(of classID: Int64, in db: Database) throws -> [Int64] {
        try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT student_id FROM registration_waitlist WHERE class_id = ? ORDER BY id"),
            arguments: [classID]
        )
    }

    /// Every student enrolled in, waitlisted for or holding an open offer for a class.
    public static func everyoneIn(classID: Int64, in db: Database) throws -> [Int64] {
        try Int64.fetchAll(
            db.cachedStatement(sql: """
                SELECT student_id FROM registration_enrollments WHERE class_id = ?
                UNION SELECT student_id FROM registration_waitlist WHERE class_id = ?
                UNION SELECT student_id FROM registration_offers WHERE class_id = ? AND state = 'open'
                ORDER BY student_id
                """),
            arguments: [classID, classID, classID]
        )
    }

    // MARK: Rosters

    static let profileColumns = "s.account_id, s.red_id, s.first_name, s.last_name, s.email, s.created_at"

    /// The students enrolled in a class with when they enrolled, first enrolled first.
    public static func enrolledStudents(of classID: Int64, in db: Database) throws -> [(StudentProfile, Date)] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT \(profileColumns), e.enrolled_at AS since FROM registration_enrollments e
                JOIN registration_students s ON s.account_id = e.student_id WHERE e.class_id = ? ORDER BY e.enrolled_at, s.account_id
                """),
            arguments: [classID]
        ).map { (StudentStore.profile(from: $0), $0["since"]) }
    }

    /// The class's waitlist in line order, with when each joined.
    public static func waitlistedStudents(of classID: Int64, in db: Database) throws -> [(StudentProfile, Date)] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT \(profileColumns), w.joined_at AS since FROM registration_waitlist w
                JOIN registration_students s ON s.account_id = w.student_id WHERE w.class_id = ? ORDER BY w.id
                """),
            arguments: [classID]
        ).map { (StudentStore.profile(from: $0), $0["since"]) }
    }

    // MARK: Offers

    public static func openOffer(studentID: Int64, classID: Int64, in db: Database) throws -> SeatOffer? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers
                WHERE student_id = ? AND class_id = ? AND state = 'open'
                """),
            arguments: [studentID, classID]
        ).map(offer(from:))
    }

    public static func openOffers(of studentID: Int64, in db: Database) throws -> [SeatOffer] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers
                WHERE student_id = ? AND state = 'open' ORDER BY class_id
                """),
            arguments: [studentID]
        ).map(offer(from:))
    }

    public static func openOffers(ofClass classID: Int64, in db: Database) throws -> [SeatOffer] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers
                WHERE class_id = ? AND state = 'open' ORDER BY id
                """),
            arguments: [classID]
        ).map(offer(from:))
    }

    public static func offer(id: Int64, in db: Database) throws -> (SeatOffer, String)? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, class_id, student_id, offered_at, expires_at, state FROM registration_offers WHERE id = ?"),
            arguments: [id]
        ).map { (offer(from: $0), $0["state"]) }
    }

    /// Open offers whose claim window has passed, optionally only for one class.
    public static func dueOffers(classID: Int64?, now: Date, in db: Database) throws -> [SeatOffer] {
        var sql = "SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers WHERE state = 'open' AND expires_at <= ?"
        var arguments: StatementArguments = [now]
        if let classID {
            sql += " AND class_id = ?"
            arguments += [classID]
        }
        return try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY id"), arguments: arguments).map(offer(from:))
    }

    public static func insertOffer(studentID: Int64, classID: Int64, now: Date, expiresAt: Date, in db: Database) throws -> SeatOffer {
        try db.cachedStatement(sql: """
                INSERT INTO registration_offers (class_id, student_id, offered_at, expires_at, state)
                VALUES (?, ?, ?, ?, 'open')
                """).execute(arguments: [classID, studentID, now, expiresAt])
        let id = db.lastInsertedRowID
        try SeatLedger.adjust(classID: classID, held: 1, in: db)
        return SeatOffer(id: id, classID: classID, studentID: studentID, offeredAt: now, expiresAt: expiresAt)
    }

    /// Closes an open offer as claimed, declined or expired; false when it was not open.
    public static func closeOffer(id: Int64, as state: String, now: Date, in db: Database) throws -> Bool {
        guard let classID = try Int64.fetchOne(
            db.cachedStatement(sql: "UPDATE registration_offers SET state = ?, closed_at = ? WHERE id = ? AND state = 'open' RETURNING class_id"),
            arguments: [state, now, id]
        ) else { return false }
        try SeatLedger.adjust(classID: classID, held: -1, in: db)
        return true
    }

    /// Removes every enrollment, waitlist entry and offer of a class that is being deleted
    /// (its seat counters go with it).
    public static func removeClass(_ classID: Int64, in db: Database) throws {
        for table in ["registration_offers", "registration_waitlist", "registration_enrollments"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE class_id = ?", arguments: [classID])
        }
    }

    static func offer(from row: Row) -> SeatOffer {
        SeatOffer(id: row["id"], classID: row["class_id"], studentID: row["student_id"], offeredAt: row["offered_at"], expiresAt: row["expires_at"])
    }
}
