import Auth
import Catalog
import Foundation
import GatewayCore
import Logging
import Registration
import Storage

/// Registration on its own, without HTTP: the module as `RegistrationModule.live` builds it, on
/// a fresh database of one backend (``RegistrationBackend``: SQLite or PostgreSQL, with the
/// Catalog's, the job queue's and Auth's tables it writes through), its catalog service, Auth's
/// account directory with cheap hashing, and a manual clock.
struct RegistrationHarness {
    let opened: RegistrationBackend.Opened
    let clock: ManualClock
    let catalog: CatalogService
    let module: RegistrationModule

    var transactions: any TransactionRunner { opened.transactions }
    var stores: RegistrationStores { opened.stores }
    var service: RegistrationService { module.service }

    static func make(
        _ backend: RegistrationBackend, settings: RegistrationSettings = RegistrationSettings(),
        clock: ManualClock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000))
    ) async throws -> RegistrationHarness {
        let opened = try await backend.make()
        do {
            var logger = Logger(label: "registration-harness")
            logger.logLevel = .critical
            let auth = AuthService(
                transactions: opened.transactions, store: opened.accounts,
                hasher: PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 1),
                throttle: LoginThrottle(), clock: clock
            )
            let catalog = try CatalogService(transactions: opened.transactions, store: opened.stores.catalog, refreshInterval: 1)
            let module = RegistrationModule.live(
                transactions: opened.transactions, stores: opened.stores, catalog: catalog,
                accounts: AuthAccountDirectory(service: auth, credentialCacheSeconds: 600), clock: clock, settings: settings, logger: logger
            )
            return RegistrationHarness(opened: opened, clock: clock, catalog: catalog, module: module)
        } catch {
            await opened.cleanUp()
            throw error
        }
    }

    /// Runs `body` on a fresh harness of `backend`, and throws the database away after,
    /// whatever happens.
    static func with(
        _ backend: RegistrationBackend, settings: RegistrationSettings = RegistrationSettings(),
        _ body: (RegistrationHarness) async throws -> Void
    ) async throws {
        let harness = try await make(backend, settings: settings)
        do {
            try await body(harness)
        } catch {
            await harness.opened.cleanUp()
            throw error
        }
        await harness.opened.cleanUp()
    }

    /// Imports `document` through the Catalog's store and reloads the in-memory catalog.
    @discardableResult
    func importCatalog(_ document: CatalogDocument) async throws -> ImportReport {
        let store = stores.catalog
        let (report, _) = try await transactions.write { tx throws in try store.apply(document, options: ImportOptions(strict: true), in: tx) }
        _ = try await catalog.reload()
        return report
    }

    /// Adds a student through the service (an account in Auth's directory); returns their account id.
    func student(_ redID: String, password: String = "password") async throws -> Int64 {
        try await service.students.addStudent(
            NewStudent(firstName: "Test", lastName: "Student \(redID)", redID: redID, password: password, email: "s\(redID)@sdsu.edu")
        ).accountID
    }
}
