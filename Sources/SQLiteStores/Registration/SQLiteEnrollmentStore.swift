import Catalog
import Contracts
import Foundation
import GRDB
import Registration
import Storage
import SQLiteStorage

/// ``EnrollmentStoring`` on SQLite: SQL for enrollments, waitlists and offers, each method inside
/// the caller's transaction; the service wraps each use case in one write transaction.
struct SQLiteEnrollmentStore: EnrollmentStoring {
    init() {}

    // MARK: Enrollments

    /// The classes a student is enrolled in, by class id.
    func enrollments(of studentID: Int64, in transaction: any StoreTransaction) throws -> [Enrollment] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: "SELECT class_id, enrolled_at FROM registration_enrollments WHERE student_id = ? ORDER BY class_id"),
            arguments: [studentID]
        ).map { Enrollment(classID: $0["class_id"], enrolledAt: $0["enrolled_at"]) }
    }

    func isEnrolled(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_enrollments WHERE student_id = ? AND class_id = ?)"),
            arguments: [studentID, classID]
        ) ?? false
    }

    func enroll(studentID: Int64, classID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (?, ?, ?)")
            .execute(arguments: [studentID, classID, now])
    }

    /// Removes an enrollment; false when there was none.
    func drop(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM registration_enrollments WHERE student_id = ? AND class_id = ?")
            .execute(arguments: [studentID, classID])
        guard db.changesCount > 0 else { return false }
        return true
    }

    // MARK: Waitlists

    /// The student's waitlist places, with positions counted among the gateway's entries.
    func waitlistPlaces(of studentID: Int64, in transaction: any StoreTransaction) throws -> [WaitlistPlace] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT w.class_id, w.joined_at, w.drop_if_enrolled,
                       (SELECT COUNT(*) FROM registration_waitlist o WHERE o.class_id = w.class_id AND o.id <= w.id) AS position
                FROM registration_waitlist w WHERE w.student_id = ? ORDER BY w.class_id
                """),
            arguments: [studentID]
        ).map { WaitlistPlace(classID: $0["class_id"], position: $0["position"], joinedAt: $0["joined_at"], dropIfEnrolled: $0["drop_if_enrolled"]) }
    }

    /// How many waitlists the student is on.
    func waitlistCount(of studentID: Int64, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_waitlist WHERE student_id = ?"), arguments: [studentID]) ?? 0
    }

    func isWaitlisted(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM registration_waitlist WHERE student_id = ? AND class_id = ?)"),
            arguments: [studentID, classID]
        ) ?? false
    }

    /// Adds the student at the end of the line and returns their position.
    func joinWaitlist(studentID: Int64, classID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "INSERT INTO registration_waitlist (student_id, class_id, joined_at) VALUES (?, ?, ?)")
            .execute(arguments: [studentID, classID, now])
        let entry = db.lastInsertedRowID
        return try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM registration_waitlist WHERE class_id = ? AND id <= ?"),
            arguments: [classID, entry]
        ) ?? 1
    }

    func dropIfEnrolled(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Int64? {
        try Int64?.fetchOne(
            transaction.sqlite().cachedStatement(sql: "SELECT drop_if_enrolled FROM registration_waitlist WHERE student_id = ? AND class_id = ?"),
            arguments: [studentID, classID]
        ) ?? nil
    }

    func setDropIfEnrolled(_ dropClassID: Int64?, studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().cachedStatement(sql: "UPDATE registration_waitlist SET drop_if_enrolled = ? WHERE student_id = ? AND class_id = ?")
            .execute(arguments: [dropClassID, studentID, classID])
    }

    /// Removes the student from the line; false when they were not in it.
    func leaveWaitlist(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM registration_waitlist WHERE student_id = ? AND class_id = ?")
            .execute(arguments: [studentID, classID])
        guard db.changesCount > 0 else { return false }
        return true
    }

    /// The line for a class: student ids, first in line first.
    func line(of classID: Int64, in transaction: any StoreTransaction) throws -> [Int64] {
        let db = try transaction.sqlite()
        return try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT student_id FROM registration_waitlist WHERE class_id = ? ORDER BY id"),
            arguments: [classID]
        )
    }

    func classesWithLine(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64> {
        let statement = try transaction.sqlite().cachedStatement(sql: "SELECT 1 FROM registration_waitlist WHERE class_id = ? LIMIT 1")
        return try Set(ids.filter { try Int64.fetchOne(statement, arguments: [$0]) != nil })
    }

    /// Every student enrolled in, waitlisted for or holding an open offer for a class.
    func everyoneIn(classID: Int64, in transaction: any StoreTransaction) throws -> [Int64] {
        let db = try transaction.sqlite()
        return try Int64.fetchAll(
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
    func enrolledStudents(of classID: Int64, in transaction: any StoreTransaction) throws -> [(StudentProfile, Date)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT \(Self.profileColumns), e.enrolled_at AS since FROM registration_enrollments e
                JOIN registration_students s ON s.account_id = e.student_id WHERE e.class_id = ? ORDER BY e.enrolled_at, s.account_id
                """),
            arguments: [classID]
        ).map { (SQLiteStudentStore.profile(from: $0), $0["since"]) }
    }

    /// The class's waitlist in line order, with when each joined.
    func waitlistedStudents(of classID: Int64, in transaction: any StoreTransaction) throws -> [(StudentProfile, Date)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT \(Self.profileColumns), w.joined_at AS since FROM registration_waitlist w
                JOIN registration_students s ON s.account_id = w.student_id WHERE w.class_id = ? ORDER BY w.id
                """),
            arguments: [classID]
        ).map { (SQLiteStudentStore.profile(from: $0), $0["since"]) }
    }

    // MARK: Offers

    func openOffer(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> SeatOffer? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers
                WHERE student_id = ? AND class_id = ? AND state = 'open'
                """),
            arguments: [studentID, classID]
        ).map(Self.offer(from:))
    }

    func openOffers(of studentID: Int64, in transaction: any StoreTransaction) throws -> [SeatOffer] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers
                WHERE student_id = ? AND state = 'open' ORDER BY class_id
                """),
            arguments: [studentID]
        ).map(Self.offer(from:))
    }

    func openOffers(ofClass classID: Int64, in transaction: any StoreTransaction) throws -> [SeatOffer] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers
                WHERE class_id = ? AND state = 'open' ORDER BY id
                """),
            arguments: [classID]
        ).map(Self.offer(from:))
    }

    func offer(id: Int64, in transaction: any StoreTransaction) throws -> (SeatOffer, SeatOfferStatus)? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, class_id, student_id, offered_at, expires_at, state FROM registration_offers WHERE id = ?"),
            arguments: [id]
        ).map { (Self.offer(from: $0), SeatOfferStatus(rawValue: $0["state"]) ?? .expired) }
    }

    /// Open offers whose claim window has passed, optionally only for one class.
    func dueOffers(classID: Int64?, now: Date, in transaction: any StoreTransaction) throws -> [SeatOffer] {
        let db = try transaction.sqlite()
        var sql = "SELECT id, class_id, student_id, offered_at, expires_at FROM registration_offers WHERE state = 'open' AND expires_at <= ?"
        var arguments: StatementArguments = [now]
        if let classID {
            sql += " AND class_id = ?"
            arguments += [classID]
        }
        return try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY id"), arguments: arguments).map(Self.offer(from:))
    }

    func insertOffer(studentID: Int64, classID: Int64, now: Date, expiresAt: Date, in transaction: any StoreTransaction) throws -> SeatOffer {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
                INSERT INTO registration_offers (class_id, student_id, offered_at, expires_at, state)
                VALUES (?, ?, ?, ?, 'open')
                """).execute(arguments: [classID, studentID, now, expiresAt])
        let id = db.lastInsertedRowID
        return SeatOffer(id: id, classID: classID, studentID: studentID, offeredAt: now, expiresAt: expiresAt)
    }

    /// Closes an open offer as claimed, declined or expired; false when it was not open.
    func closeOffer(id: Int64, as state: SeatOfferStatus, now: Date, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "UPDATE registration_offers SET state = ?, closed_at = ? WHERE id = ? AND state = 'open'")
            .execute(arguments: [state.rawValue, now, id])
        return db.changesCount > 0
    }

    /// Removes every enrollment, waitlist entry and offer of a class that is being deleted
    /// (its seat counters go with it).
    func removeClass(_ classID: Int64, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        for table in ["registration_offers", "registration_waitlist", "registration_enrollments"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE class_id = ?", arguments: [classID])
        }
    }

    static func offer(from row: Row) -> SeatOffer {
        SeatOffer(id: row["id"], classID: row["class_id"], studentID: row["student_id"], offeredAt: row["offered_at"], expiresAt: row["expires_at"])
    }
}
