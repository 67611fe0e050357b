import Auth
import Catalog
import Gradebook
import Jobs
import Push
import Registration
import Scheduling
import Storage

/// Every module's stores on one backend: the one place that names concrete store types. A
/// second backend is a second factory beside ``sqlite(database:vault:)``.
struct GatewayStores {
    var accounts: any AccountStoring
    var catalog: CatalogStores
    var scheduling: SchedulingStores
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
            accounts: SQLiteAccountStore(), catalog: .sqlite(), scheduling: .sqlite(), gradebook: .sqlite(),
            push: .sqlite(database: database, sealer: VaultSecretSealing(vault: vault)), jobs: .sqlite(database: database),
            registration: { catalog, jobs in .sqlite(catalog: catalog, jobs: jobs) }
        )
    }
}
