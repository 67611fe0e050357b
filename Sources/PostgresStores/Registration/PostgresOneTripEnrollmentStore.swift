import Catalog
import Contracts
import Foundation
import PostgresNIO
import Registration
import Storage
import PostgresStorage

/// ``OneTripEnrollmentStoring`` on PostgreSQL: one read, and one call of the functions
/// `registration.pg.003` installs, each a prepared statement (``OneTripStatements``) sent from
/// the request's task.
struct PostgresOneTripEnrollmentStore: OneTripEnrollmentStoring {
    func facts(
        studentID: Int64, classID: Int64, eligibilityOf courses: [String]?, in transaction: any StoreTransaction
    ) async throws -> RegistrationFacts? {
        let transaction = try transaction.postgres()
        guard let courses else {
            return try await transaction.rows(OneTripStatements.Facts(student: studentID, classID: classID)).first
                .map { Self.facts($0, classID: classID, eligibility: nil) }
        }
        guard let row = try await transaction.rows(
            OneTripStatements.FactsWithEligibility(student: studentID, classID: classID, courses: PostgresEligibilityStore.courseKeys(courses))
        ).first else { return nil }
        return Self.facts(row.facts, classID: classID, eligibility: try PostgresEligibilityStore.facts(row.eligibility))
    }

    func eligibility(studentID: Int64, term: String, courses: [String], in transaction: any StoreTransaction) async throws -> EligibilityFacts {
        guard let row = try await transaction.postgres().rows(
            OneTripStatements.Eligibility(student: studentID, term: term, courses: PostgresEligibilityStore.courseKeys(courses))
        ).first else { return EligibilityFacts() }
        return try PostgresEligibilityStore.facts(row)
    }

    static func facts(_ row: OneTripStatements.FactsColumns, classID: Int64, eligibility: EligibilityFacts?) -> RegistrationFacts {
        let (term, seats, enrolled, held, status, seatsFrom, version, classes, waitlisted, offer) = row
        return RegistrationFacts(
            seats: ClassSeats(
                id: classID, term: term, meetings: [], seats: seats, enrolled: enrolled, held: held,
                seatsAtRegistrar: seatsFrom == Term.SeatsSource.registrar.rawValue, status: SectionStatus(rawValue: status) ?? .closed
            ),
            catalogVersion: version ?? 0, enrolledClassIDs: classes, isWaitlisted: waitlisted, holdsOffer: offer, eligibility: eligibility
        )
    }

    func enroll(
        studentID: Int64, classID: Int64, at now: Date, enrolledClassIDs: [Int64], catalogVersion: Int64, wasOpen: Bool?,
        in transaction: any StoreTransaction
    ) async throws -> OneTripOutcome {
        let rows = try await transaction.postgres().rows(OneTripStatements.Enroll(
            student: studentID, classID: classID, now: now, enrolled: enrolledClassIDs, version: catalogVersion, wasOpen: wasOpen
        ))
        return Self.outcome(rows.first)
    }

    func drop(
        studentID: Int64, classID: Int64, term: String?, at now: Date, wasOpen: Bool?, in transaction: any StoreTransaction
    ) async throws -> OneTripOutcome {
        let rows = try await transaction.postgres().rows(
            OneTripStatements.Drop(student: studentID, classID: classID, term: term, now: now, wasOpen: wasOpen)
        )
        return Self.outcome(rows.first)
    }

    static func outcome(_ row: OneTripStatements.OutcomeColumns?) -> OneTripOutcome {
        guard let (outcome, seats, enrolled, held, waitlist, revision, status, event) = row else { return .stale }
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

    func accountID(redID: String, in transaction: any StoreTransaction) async throws -> Int64? {
        try await transaction.postgres().rows(OneTripStatements.StudentAccount(redID: redID)).first
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
