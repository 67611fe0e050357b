public import Catalog
public import Contracts
public import Foundation

/// What a registration decides on, read in one statement without a transaction: the class's
/// counts and term, the catalog version, the student's classes and where they stand in it.
/// Everything else the rules need (terms' and classes' meetings) is the catalog's, which the
/// version pins.
public struct RegistrationFacts: Sendable, Equatable {
    public var seats: ClassSeats
    public var catalogVersion: Int64
    /// The student's classes, by id (every term).
    public var enrolledClassIDs: [Int64]
    public var isWaitlisted: Bool
    public var holdsOffer: Bool
    /// The student's eligibility facts for the class's term, when they were asked for.
    public var eligibility: EligibilityFacts?

    public init(
        seats: ClassSeats, catalogVersion: Int64, enrolledClassIDs: [Int64], isWaitlisted: Bool, holdsOffer: Bool,
        eligibility: EligibilityFacts? = nil
    ) {
        self.seats = seats
        self.catalogVersion = catalogVersion
        self.enrolledClassIDs = enrolledClassIDs
        self.isWaitlisted = isWaitlisted
        self.holdsOffer = holdsOffer
        self.eligibility = eligibility
    }
}

/// How a one-trip change ended.
public enum OneTripOutcome: Sendable, Equatable {
    /// Done: the class's counts after it, and whether its seat state flipped (an event was
    /// written to the outbox).
    case done(SeatCount, event: Bool)
    /// What the use case decided on changed, or the change needs the waitlist policy: run the
    /// whole use case in a transaction instead.
    case stale
    case full
    case unknownClass
    case atRegistrar
    case notEnrolled
}

/// An open or close event from the outbox (`registration_seat_events`).
public struct SeatEvent: Sendable, Equatable {
    public var id: Int64
    public var classID: Int64
    public var open: Bool
    public var openSeats: Int

    public init(id: Int64, classID: Int64, open: Bool, openSeats: Int) {
        self.id = id
        self.classID = classID
        self.open = open
        self.openSeats = openSeats
    }
}

/// Registrations in two round trips, where the backend offers them (PostgreSQL: functions the
/// migration installs lock the class's and the student's rows, check that what the use case
/// decided on still holds, and write). Each call is one prepared statement sent from the
/// request's own task (``TransactionRunner/inTask(_:)``), outside any transaction. The rules
/// stay in the use case: these only refuse to write what it did not see.
public protocol OneTripEnrollmentStoring: Sendable {
    /// What the rules of a registration of `studentID` in `classID` need, with the student's
    /// eligibility facts for the class's term and `courses` when `courses` is given, in one
    /// statement; nil without such a class.
    func facts(studentID: Int64, classID: Int64, eligibilityOf courses: [String]?, in transaction: any StoreTransaction) async throws -> RegistrationFacts?
    /// The student's eligibility facts in `term` with the requirements of `courses` (a drop's
    /// corequisites, known once the student's classes are).
    func eligibility(studentID: Int64, term: String, courses: [String], in transaction: any StoreTransaction) async throws -> EligibilityFacts
    /// Enrolls the student if nothing the use case decided on (`enrolledClassIDs`, sorted; the
    /// catalog version) changed, the class holds no seat and the student is neither in its line
    /// nor holds its offer; `.full` without a seat, `.stale` otherwise.
    func enroll(
        studentID: Int64, classID: Int64, at now: Date, enrolledClassIDs: [Int64], catalogVersion: Int64, wasOpen: Bool?,
        in transaction: any StoreTransaction
    ) async throws -> OneTripOutcome
    /// Drops the student from a class with no line and no held seat (`.stale` when it has
    /// either); of `term` only, when given.
    func drop(studentID: Int64, classID: Int64, term: String?, at now: Date, wasOpen: Bool?, in transaction: any StoreTransaction) async throws -> OneTripOutcome
    /// The account whose red id this is (an SDSU request's credential check, before Auth
    /// checks that account's password).
    func accountID(redID: String, in transaction: any StoreTransaction) async throws -> Int64?
    /// Deletes and returns up to `limit` events of the outbox, oldest first, skipping those
    /// another instance is taking.
    func takeSeatEvents(limit: Int, in transaction: any StoreTransaction) throws -> [SeatEvent]
}
