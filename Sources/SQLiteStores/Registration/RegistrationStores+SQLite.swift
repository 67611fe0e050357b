public import Catalog
public import Jobs
public import Registration
public import Storage

extension RegistrationStores {
    /// The SQLite stores, on the service's one database file, writing through the catalog's
    /// store and the job system's enqueuer in the same transactions.
    public static func sqlite(catalog: any CatalogStoring, jobs: any JobEnqueuing) -> RegistrationStores {
        RegistrationStores(
            students: SQLiteStudentStore(), enrollments: SQLiteEnrollmentStore(), seatStates: SQLiteSeatStateStore(),
            registrarFeed: SQLiteRegistrarFeedStore(), catalog: catalog, terms: SQLiteTermStore(), jobs: jobs,
            locks: SQLiteRowLockStore(), eligibility: SQLiteEligibilityStore()
        )
    }

    /// The student store alone (what shared enrollments read), for modules built before Registration.
    public static func studentsOnSQLite() -> any StudentStoring { SQLiteStudentStore() }
}
