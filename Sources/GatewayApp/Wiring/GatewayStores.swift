import Auth
import Catalog
import Friends
import Gradebook
import Jobs
import PostgresStores
import Push
import Registration
import SQLiteStores
import Scheduling
import Storage
import SQLiteStorage
import PostgresStorage

/// Every module's stores on one backend: the one place that names concrete store types. A
/// backend is a factory: ``sqlite(database:vault:)`` and ``postgres(database:vault:)``.
struct GatewayStores {
    var accounts: any AccountStoring
    var signInLedger: any SignInLedgerStoring
    var campusSignIn: any CampusSignInStoring
    /// The audit log of admin and operator writes (Auth's table).
    var audit: any AuditStoring
    var catalog: CatalogStores
    var scheduling: SchedulingStores
    var friends: any FriendsStoring
    /// Registration's student store alone: the enrollments students share with friends, read
    /// by the Friends module before Registration is built.
    var students: any StudentStoring
    var gradebook: GradebookStores
    var push: PushStores
    var jobs: JobsStores
    /// Registration writes through the catalog's store and the job enqueuer, so its stores are
    /// made once those exist.
    var registration: @Sendable (_ catalog: any CatalogStoring, _ jobs: any JobEnqueuing) -> RegistrationStores

    func registration(catalog: any CatalogStoring, jobs: any JobEnqueuing) -> RegistrationStores { registration(catalog, jobs) }

    /// The stores on the gateway's SQLite file; Push's device keys are sealed by `vault`.
    static func sqlite(database: GatewayDatabase, vault: VaultKeyProvider) -> GatewayStores {
        GatewayStores(
            accounts: SQLiteAccountStore(), signInLedger: SQLiteSignInLedgerStore(), campusSignIn: SQLiteCampusSignInStore(), audit: SQLiteAuditStore(),
            catalog: .sqlite(), scheduling: .sqlite(), friends: SQLiteFriendsStore(), students: RegistrationStores.studentsOnSQLite(),
            gradebook: .sqlite(),
            push: .sqlite(database: database, sealer: VaultSecretSealing(vault: vault)), jobs: .sqlite(database: database),
            registration: { catalog, jobs in .sqlite(catalog: catalog, jobs: jobs) }
        )
    }

    /// The stores on a PostgreSQL database that many instances share; Push's device keys are
    /// sealed by `vault`.
    static func postgres(database: GatewayPostgres, vault: VaultKeyProvider) -> GatewayStores {
        GatewayStores(
            accounts: PostgresAccountStore(), signInLedger: PostgresSignInLedgerStore(), campusSignIn: PostgresCampusSignInStore(), audit: PostgresAuditStore(),
            catalog: .postgres(database: database), scheduling: .postgres(), friends: PostgresFriendsStore(),
            students: RegistrationStores.studentsOnPostgres(), gradebook: .postgres(),
            push: .postgres(sealer: VaultSecretSealing(vault: vault)), jobs: .postgres(database: database),
            registration: { catalog, jobs in .postgres(catalog: catalog, jobs: jobs) }
        )
    }
}
