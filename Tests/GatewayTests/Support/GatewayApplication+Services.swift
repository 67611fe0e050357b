import Auth
import Catalog
import GatewayApp
import Gradebook
import Jobs
import Push
import Registration

/// The composed application's services, as the journeys of this target reach them: the one
/// place that knows how ``GatewayApplication/modules`` is laid out, so that a module that
/// changes its inside changes this file, not every journey. Tests of one module go through
/// `ModuleHarness` in that module's own target instead.
extension GatewayApplication {
    /// Runs every job queued on `queue` that is due, as the application's workers would, and
    /// returns what finished.
    @discardableResult
    func runQueuedJobs(queue: String = "default") async throws -> [FinishedJob] {
        try await modules.jobs.runtime.pool.drain(queue: queue)
    }

    /// The job queue: enqueue, list, the registry of kinds and schedules.
    var jobsRuntime: JobsRuntime { modules.jobs.runtime }
    /// Accounts and tokens (Auth).
    var accounts: AuthService { modules.auth.service }
    /// The notification outbox (Push).
    var outbox: PushService { modules.push.push }
    /// Students' devices (Push).
    var pushDevices: DeviceService { modules.push.devices }
    /// Seat alerts (Push).
    var seatAlerts: SeatAlertService { modules.push.seatAlerts }
    /// The catalog (Catalog).
    var catalogService: CatalogService { modules.catalog.catalog }
    /// Academic terms (Catalog).
    var termService: TermService { modules.catalog.terms }
    /// Registration's use cases.
    var registrationService: RegistrationService { modules.registration.service }
    /// Gradebook sources, students' accounts and QuickHAC devices' accounts.
    var gradebookSources: GradebookSourceService { modules.gradebook.sources }
    var gradebookAccounts: GradebookAccountService { modules.gradebook.accounts }
    var gradebookDeviceAccounts: DeviceAccountService { modules.gradebook.deviceAccounts }
    /// The credential vault's keys, and every table of values it seals.
    var vault: VaultKeyProvider { modules.vault }
    var vaultRows: [any VaultRows] { modules.vaultRows }
}
