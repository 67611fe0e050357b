import Catalog
import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``EnrollmentStoring`` on PostgreSQL: enrollments, waitlists and offers, each method inside
/// the caller's SERIALIZABLE unit; the use case moves the seat counters in that same unit
/// (``SeatChange``). Two instances selling the last seat at once can't both commit: one unit is
/// aborted and run again, and then finds the class full.
struct PostgresEnrollmentStore: EnrollmentStoring {
    init() {}

    func enrollments(of studentID: Int64, in transaction: any StoreTransaction) throws -> [Enrollment] {
        try transaction.postgres().query(
            "SELECT class_id, enrolled_at FROM registration_enrollments WHERE student_id = \(studentID) ORDER BY class_id"
        ).map { row in
            let (classID, enrolledAt) = try row.decode((Int64, Date).self)
            return Enrollment(classID: classID, enrolledAt: enrolledAt)
        }
    }

    func isEnrolled(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query(
            "SELECT 1 FROM registration_enrollments WHERE student_id = \(studentID) AND class_id = \(classID)"
        ).isEmpty
    }

    func enroll(studentID: Int64, classID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        try transaction.execute(
            "INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (\(studentID), \(classID), \(now))"
        )
    }

    func drop(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let transaction = try transaction.postgres()
        guard try transaction.execute(
            "DELETE FROM registration_enrollments WHERE student_id = \(studentID) AND class_id = \(classID)"
        ) > 0 else { return false }
        return true
    }

    func waitlistPlaces(of studentID: Int64, in transaction: any StoreTransaction) throws -> [WaitlistPlace] {
        try transaction.postgres().query("""
            SELECT w.class_id, (SELECT COUNT(*) FROM registration_waitlist o WHERE o.class_id = w.class_id AND o.id <= w.id), w.joined_at,
                w.drop_if_enrolled
            FROM registration_waitlist w WHERE w.student_id = \(studentID) ORDER BY w.class_id
            """).map { row in
            let (classID, position, joinedAt, dropIfEnrolled) = try row.decode((Int64, Int, Date, Int64?).self)
            return WaitlistPlace(classID: classID, position: position, joinedAt: joinedAt, dropIfEnrolled: dropIfEnrolled)
        }
    }

    func waitlistCount(of studentID: Int64, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM registration_waitlist WHERE student_id = \(studentID)").first?.decode(Int.self) ?? 0
    }

    func isWaitlisted(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query(
            "SELECT 1 FROM registration_waitlist WHERE student_id = \(studentID) AND class_id = \(classID)"
        ).isEmpty
    }

    func joinWaitlist(studentID: Int64, classID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> Int {
        let transaction = try transaction.postgres()
        let entry = try transaction.query("""
            INSERT INTO registration_waitlist (student_id, class_id, joined_at) VALUES (\(studentID), \(classID), \(now)) RETURNING id
            """).first!.decode(Int64.self)
        return try transaction.query(
            "SELECT COUNT(*) FROM registration_waitlist WHERE class_id = \(classID) AND id <= \(entry)"
        ).first?.decode(Int.self) ?? 1
    }

    func dropIfEnrolled(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Int64? {
        try transaction.postgres().query("""
            SELECT drop_if_enrolled FROM registration_waitlist WHERE student_id = \(studentID) AND class_id = \(classID)
            """).first?.decode(Int64?.self) ?? nil
    }

    func setDropIfEnrolled(_ dropClassID: Int64?, studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            UPDATE registration_waitlist SET drop_if_enrolled = \(dropClassID) WHERE student_id = \(studentID) AND class_id = \(classID)
            """)
    }

    func leaveWaitlist(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let transaction = try transaction.postgres()
        guard try transaction.execute(
            "DELETE FROM registration_waitlist WHERE student_id = \(studentID) AND class_id = \(classID)"
        ) > 0 else { return false }
        return true
    }

    func line(of classID: Int64, in transaction: any StoreTransaction) throws -> [Int64] {
        try transaction.postgres().query("SELECT student_id FROM registration_waitlist WHERE class_id = \(classID) ORDER BY id")
            .map { try $0.decode(Int64.self) }
    }

    func classesWithLine(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try Set(transaction.postgres().query("SELECT DISTINCT class_id FROM registration_waitlist WHERE class_id = ANY(\(ids)::bigint[])")
            .map { try $0.decode(Int64.self) })
    }

    func everyoneIn(classID: Int64, in transaction: any StoreTransaction) throws -> [Int64] {
        try transaction.postgres().query("""
            SELECT student_id FROM registration_enrollments WHERE class_id = \(classID)
            UNION SELECT student_id FROM registration_waitlist WHERE class_id = \(classID)
            UNION SELECT student_id FROM registration_offers WHERE class_id = \(classID) AND state = 'open'
            ORDER BY student_id
            """).map { try $0.decode(Int64.self) }
    }

    static let profileColumns = "s.account_id, s.red_id, s.first_name, s.last_name, s.email, s.created_at"

    static func profiles(_ rows: PostgresQueryResult) throws -> [(StudentProfile, Date)] {
        try rows.map { row in
            let (accountID, redID, first, last, email, createdAt, since) = try row.decode((Int64, String, String, String, String, Date, Date).self)
            return (StudentProfile(accountID: accountID, redID: redID, firstName: first, lastName: last, email: email, createdAt: createdAt), since)
        }
    }

    func enrolledStudents(of classID: Int64, in transaction: any StoreTransaction) throws -> [(StudentProfile, Date)] {
        try Self.profiles(transaction.postgres().query("""
            SELECT \(unescaped: Self.profileColumns), e.enrolled_at FROM registration_enrollments e
            JOIN registration_students s ON s.account_id = e.student_id WHERE e.class_id = \(classID) ORDER BY e.enrolled_at, s.account_id
            """))
    }

    func waitlistedStudents(of classID: Int64, in transaction: any StoreTransaction) throws -> [(StudentProfile, Date)] {
        try Self.profiles(transaction.postgres().query("""
            SELECT \(unescaped: Self.profileColumns), w.joined_at FROM registration_waitlist w
            JOIN registration_students s ON s.account_id = w.student_id WHERE w.class_id = \(classID) ORDER BY w.id
            """))
    }

    static let offerColumns = "id, class_id, student_id, offered_at, expires_at"

    static func offers(_ rows: PostgresQueryResult) throws -> [SeatOffer] {
        try rows.map { row in
            let (id, classID, studentID, offeredAt, expiresAt) = try row.decode((Int64, Int64, Int64, Date, Date).self)
            return SeatOffer(id: id, classID: classID, studentID: studentID, offeredAt: offeredAt, expiresAt: expiresAt)
        }
    }

    func openOffer(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> SeatOffer? {
        try Self.offers(transaction.postgres().query("""
            SELECT \(unescaped: Self.offerColumns) FROM registration_offers
            WHERE student_id = \(studentID) AND class_id = \(classID) AND state = 'open'
            """)).first
    }

    func openOffers(of studentID: Int64, in transaction: any StoreTransaction) throws -> [SeatOffer] {
        try Self.offers(transaction.postgres().query("""
            SELECT \(unescaped: Self.offerColumns) FROM registration_offers WHERE student_id = \(studentID) AND state = 'open' ORDER BY class_id
            """))
    }

    func openOffers(ofClass classID: Int64, in transaction: any StoreTransaction) throws -> [SeatOffer] {
        try Self.offers(transaction.postgres().query("""
            SELECT \(unescaped: Self.offerColumns) FROM registration_offers WHERE class_id = \(classID) AND state = 'open' ORDER BY id
            """))
    }

    func offer(id: Int64, in transaction: any StoreTransaction) throws -> (SeatOffer, SeatOfferStatus)? {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.offerColumns), state FROM registration_offers WHERE id = \(id)
            """).first.map { row in
            let (id, classID, studentID, offeredAt, expiresAt, state) = try row.decode((Int64, Int64, Int64, Date, Date, String).self)
            return (SeatOffer(id: id, classID: classID, studentID: studentID, offeredAt: offeredAt, expiresAt: expiresAt),
                    SeatOfferStatus(rawValue: state) ?? .expired)
        }
    }

    func dueOffers(classID: Int64?, now: Date, in transaction: any StoreTransaction) throws -> [SeatOffer] {
        try Self.offers(transaction.postgres().query("""
            SELECT \(unescaped: Self.offerColumns) FROM registration_offers
            WHERE state = 'open' AND expires_at <= \(now) AND (\(classID)::bigint IS NULL OR class_id = \(classID))
            ORDER BY id
            """))
    }

    func insertOffer(studentID: Int64, classID: Int64, now: Date, expiresAt: Date, in transaction: any StoreTransaction) throws -> SeatOffer {
        let transaction = try transaction.postgres()
        let id = try transaction.query("""
            INSERT INTO registration_offers (class_id, student_id, offered_at, expires_at, state)
            VALUES (\(classID), \(studentID), \(now), \(expiresAt), 'open') RETURNING id
            """).first!.decode(Int64.self)
        return SeatOffer(id: id, classID: classID, studentID: studentID, offeredAt: now, expiresAt: expiresAt)
    }

    func closeOffer(id: Int64, as state: SeatOfferStatus, now: Date, in transaction: any StoreTransaction) throws -> Bool {
        let transaction = try transaction.postgres()
        return try transaction.execute("""
            UPDATE registration_offers SET state = \(state.rawValue), closed_at = \(now) WHERE id = \(id) AND state = 'open'
            """) > 0
    }

    func removeClass(_ classID: Int64, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        try transaction.execute("DELETE FROM registration_offers WHERE class_id = \(classID)")
        try transaction.execute("DELETE FROM registration_waitlist WHERE class_id = \(classID)")
        try transaction.execute("DELETE FROM registration_enrollments WHERE class_id = \(classID)")
    }
}
