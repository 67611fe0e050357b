public import Catalog
public import Jobs
public import Registration
public import Storage

extension RegistrationStores {
    /// The PostgreSQL stores, writing through the catalog's store and the job system's
    /// enqueuer in the same units of work.
    public static func postgres(catalog: any CatalogStoring, jobs: any JobEnqueuing) -> RegistrationStores {
        RegistrationStores(
            students: PostgresStudentStore(), enrollments: PostgresEnrollmentStore(), seatStates: PostgresSeatStateStore(),
            registrarFeed: PostgresRegistrarFeedStore(), catalog: catalog, terms: PostgresTermStore(), jobs: jobs,
            locks: PostgresRowLockStore(), eligibility: PostgresEligibilityStore(), oneTrip: PostgresOneTripEnrollmentStore()
        )
    }

    /// The student store alone (what shared enrollments read), for modules built before Registration.
    public static func studentsOnPostgres() -> any StudentStoring { PostgresStudentStore() }
}
