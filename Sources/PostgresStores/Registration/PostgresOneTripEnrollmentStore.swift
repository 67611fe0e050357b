import Catalog
import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``OneTripEnrollmentStoring`` on PostgreSQL: one read, and one call of the functions
/// `registration.pg.003` installs.
struct PostgresOneTripEnrollmentStore: OneTripEnrollmentStoring {
    func facts(studentID: Int64, classID: Int64, in transaction: any StoreTransaction) throws -> RegistrationFacts? {
        guard let row = try transaction.postgres().query("""
            SELECT term, seats, enrolled, held, status, seats_from, catalog_version, enrolled_classes, waitlisted, holds_offer
            FROM registration_enrollment_facts(\(studentID), \(classID))
            """).first else { return nil }
        let (term, seats, enrolled, held, status, seatsFrom, version, classes, waitlisted, offer) =
            try row.decode((String, Int, Int, Int, Int, String?, Int64?, [Int64], Bool, Bool).self)
        return RegistrationFacts(
            seats: ClassSeats(
                id: classID, term: term, meetings: [], seats: seats, enrolled: enrolled, held: held,
                seatsAtRegistrar: seatsFrom == Term.SeatsSource.registrar.rawValue, status: SectionStatus(rawValue: status) ?? .closed
            ),
            catalogVersion: version ?? 0, enrolledClassIDs: classes, isWaitlisted: waitlisted, holdsOffer: offer
        )
    }

    func enroll(
        studentID: Int64, classID: Int64, at now: Date, enrolledClassIDs: [Int64], catalogVersion: Int64, wasOpen: Bool?,
        in transaction: any StoreTransaction
    ) throws -> OneTripOutcome {
        try Self.outcome(transaction.postgres().query("""
            SELECT * FROM registration_enroll(\(studentID), \(classID), \(now), \(enrolledClassIDs)::bigint[], \(catalogVersion), \(wasOpen))
            """))
    }

    func drop(studentID: Int64, classID: Int64, term: String?, at now: Date, wasOpen: Bool?, in transaction: any StoreTransaction) throws -> OneTripOutcome {
        try Self.outcome(transaction.postgres().query("SELECT * FROM registration_drop(\(studentID), \(classID), \(term), \(now), \(wasOpen))"))
    }

    static func outcome(_ rows: PostgresQueryResult) throws -> OneTripOutcome {
        guard let row = rows.first else { return .stale }
        let (outcome, seats, enrolled, held, waitlist, revision, status, event) = try row.decode((String, Int, Int, Int, Int, Int64, Int, Bool).self)
        switch outcome {
        case "done":
            return .done(
                SeatCount(seats: seats, enrolled: enrolled, held: held, waitlist: waitlist, revision: revision, status: SectionStatus(rawValue: status) ?? .closed),
                event: event
            )
        case "full": return .full
        case "unknown": return .unknownClass
        case "registrar": return .atRegistrar
        case "not-enrolled": return .notEnrolled
        default: return .stale
        }
    }

    func takeSeatEvents(limit: Int, in transaction: any StoreTransaction) throws -> [SeatEvent] {
        try transaction.postgres().query("""
            DELETE FROM registration_seat_events WHERE id IN (
                SELECT id FROM registration_seat_events ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED
            ) RETURNING id, class_id, open, open_seats
            """).map { row in
            let (id, classID, open, seats) = try row.decode((Int64, Int64, Bool, Int).self)
            return SeatEvent(id: id, classID: classID, open: open, openSeats: seats)
        }.sorted { $0.id < $1.id }
    }
}
