public import ModuleKit
public import Catalog
public import Contracts
public import GatewayCore
public import GatewayHTTP
public import Jobs
public import Logging
public import Storage

/// Enrollment, waitlists and offers, and the SDSU protocol, built in one place from what the
/// module needs from outside: a transaction runner and its stores (with the catalog's store and
/// the job enqueuer it writes through), the catalog, the accounts (Auth's, through Contracts),
/// a clock and the settings. It gives back the service, its class directory for the modules
/// that name classes (Scheduling, Push), and its job handlers.
public struct RegistrationModule: JobRunningModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { RegistrationSchema.self }

    public let service: RegistrationService

    /// The module on `stores`.
    public static func live(
        transactions: any TransactionRunner, stores: RegistrationStores, catalog: CatalogService, accounts: any AccountDirectory,
        clock: any GatewayClock, settings: RegistrationSettings, registrarFeed: RegistrarFeedSettings = .init(), logger: Logger
    ) -> RegistrationModule {
        RegistrationModule(service: RegistrationService(
            transactions: transactions, stores: stores, catalog: catalog, accounts: accounts, clock: clock, settings: settings,
            registrarFeed: registrarFeed, logger: logger
        ))
    }

    /// Students' registered classes, their current state and class labels, for other modules.
    public var classDirectory: RegistrationClassDirectory { RegistrationClassDirectory(service: service) }

    /// The enrollments students share with friends, read from the student store alone: for the
    /// Friends module, which is built before this one.
    public static func sharedEnrollments(transactions: any TransactionRunner, students: any StudentStoring) -> SharedEnrollmentReader {
        SharedEnrollmentReader(transactions: transactions, students: students)
    }

    /// Registers offer expiry and the minute's sweep of lapsed offers.
    public func register(in registry: JobRegistry) throws {
        try RegistrationJobHandlers.register(service, in: registry)
    }

    /// The module's HTTP routes (`/v1/...` registration and the SDSU protocol).
    public var routes: RegistrationRoutes { RegistrationRoutes(service: service) }

    /// Errors under `/registration/` answer as the SDSU server did.
    public var errorRenderers: [ErrorRenderer] { [RegistrationRoutes.errorRenderer] }

    /// Catalog files are uploaded to ``RegistrationRoutes/importPath``; the registrar's seat feed
    /// (up to `RegistrarSeatFeed.maximumBodyBytes`, bounded by its route) passes the front door's
    /// smaller default limit too.
    public var importPaths: [String] { [RegistrationRoutes.importPath, RegistrationRoutes.registrarFeedPath] }
}
