public import Catalog
public import Jobs

/// Every store Registration's services reach, each behind its protocol: its own (students,
/// enrollments) and the owners' APIs it writes through in its transactions (the Catalog's seat
/// counters, the job queue). A second backend is a second value of this struct.
public struct RegistrationStores: Sendable {
    public var students: any StudentStoring
    public var enrollments: any EnrollmentStoring
    public var seatStates: any SeatStateStoring
    public var registrarFeed: any RegistrarFeedStoring
    public var catalog: any CatalogStoring
    /// The Catalog's terms (whose seats come from the registrar).
    public var terms: any TermStoring
    public var jobs: any JobEnqueuing
    /// Row locks a registration takes before it reads (PostgreSQL; nothing on SQLite).
    public var locks: any RowLocking
    /// Registrations in one round trip each, where the backend has them (PostgreSQL); nil
    /// where every registration is a unit of group commit (SQLite).
    public var oneTrip: (any OneTripEnrollmentStoring)?
    /// Records, holds, windows, requirements and overrides: who may register.
    public var eligibility: any EligibilityStoring

    public init(
        students: any StudentStoring, enrollments: any EnrollmentStoring, seatStates: any SeatStateStoring,
        registrarFeed: any RegistrarFeedStoring, catalog: any CatalogStoring, terms: any TermStoring, jobs: any JobEnqueuing,
        locks: any RowLocking, eligibility: any EligibilityStoring, oneTrip: (any OneTripEnrollmentStoring)? = nil
    ) {
        self.eligibility = eligibility
        self.locks = locks
        self.oneTrip = oneTrip
        self.students = students
        self.enrollments = enrollments
        self.seatStates = seatStates
        self.registrarFeed = registrarFeed
        self.catalog = catalog
        self.terms = terms
        self.jobs = jobs
    }
}
