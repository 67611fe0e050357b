import Auth
import AuthTestSupport
import Catalog
import Contracts
import Foundation
import GRDB
import GatewayCore
import HummingbirdTesting
import Jobs
import Logging
import PostgresStores
import Registration
import SQLiteStores
import Storage
import TestSupport
import SQLiteStorage
import PostgresStorage

/// The Registration module alone on a router, as its HTTP suites need it: on a fresh database of
/// either backend holding the tables it reads and writes (its own, the Catalog's whose seat
/// counters it moves, the jobs table it enqueues into, and Auth's accounts, which students are).
/// What it consumes is real but small: the Catalog's service on that database, Auth's service as
/// the account directory and as the authenticator (cheap hashing), a job runtime whose workers
/// are off. Nothing else of the application runs: no Push, no Scheduling, no front door.
struct RegistrationGateway: AuthenticatedTestWorld {
    let module: RegistrationModule
    let auth: AuthService
    let catalog: CatalogModule
    let jobs: JobsRuntime
    let transactions: any TransactionRunner
    let backend: TestBackend.OpenedBackend
    let clock: ManualClock
    let router: ModuleRouter<RegistrationModule>
    let cleanUpBody: @Sendable () async -> Void

    var registration: RegistrationService { module.service }

    /// Registration on `backend` with the seed's fixtures (Astronomy and Computer Science) in the
    /// catalog, and `configure`'s settings; `hasher` is Auth's (cheap hashing unless given).
    static func registration(
        _ backend: TestBackend = .sqlite, size: DemoCatalog.Size = .fixtures, loginThrottle: LoginThrottle.Limits = .init(),
        hasher: PasswordHasher? = nil, registrarFeed: RegistrarFeedSettings = .init(), configure: (inout RegistrationSettings) -> Void = { _ in }
    ) async throws -> RegistrationGateway {
        let gateway = try await make(backend, loginThrottle: loginThrottle, hasher: hasher, registrarFeed: registrarFeed, configure: configure)
        try await gateway.registration.admin.seedDemoCatalogIfEmpty(size: size)
        return gateway
    }

    static let sqliteSchemas: [any SchemaModule.Type] = [AuthSchema.self, JobsSchema.self, CatalogSchema.self, RegistrationSchema.self]
    static let postgresSchemas: [any PostgresSchemaModule.Type] = [AuthSchema.self, JobsSchema.self, CatalogSchema.self, RegistrationSchema.self]

    /// Registration on `backend` with an empty catalog.
    static func make(
        _ backend: TestBackend, loginThrottle: LoginThrottle.Limits = .init(), hasher: PasswordHasher? = nil,
        registrarFeed: RegistrarFeedSettings = .init(), configure: (inout RegistrationSettings) -> Void = { _ in }
    ) async throws -> RegistrationGateway {
        let (transactions, opened, cleanUp) = try await backend.database("registration-routes", sqlite: sqliteSchemas, postgres: postgresSchemas)
        var settings = RegistrationSettings()
        configure(&settings)
        return try build(
            transactions: transactions, backend: opened, clock: ManualClock(Date()), settings: settings, loginThrottle: loginThrottle, hasher: hasher,
            registrarFeed: registrarFeed, cleanUp: cleanUp
        )
    }

    /// The same database served by a second instance (as after a restart, or beside this one):
    /// connections, caches and a hasher of its own, the same clock and settings.
    func secondInstance(hasher: PasswordHasher? = nil) throws -> RegistrationGateway {
        let (transactions, opened, close) = try backend.secondInstance(sqlite: Self.sqliteSchemas)
        return try Self.build(
            transactions: transactions, backend: opened, clock: clock, settings: module.service.settings, loginThrottle: .init(), hasher: hasher,
            cleanUp: close
        )
    }

    private static func build(
        transactions: any TransactionRunner, backend opened: TestBackend.OpenedBackend, clock: ManualClock, settings: RegistrationSettings,
        loginThrottle: LoginThrottle.Limits, hasher: PasswordHasher?, registrarFeed: RegistrarFeedSettings = .init(),
        cleanUp: @escaping @Sendable () async -> Void
    ) throws -> RegistrationGateway {
        var logger = Logger(label: "registration-tests")
        logger.logLevel = .critical
        let catalogStores: CatalogStores, jobStores: JobsStores
        switch opened {
        case .sqlite(let database): catalogStores = .sqlite(); jobStores = .sqlite(database: database)
        case .postgres(let database): catalogStores = .postgres(); jobStores = .postgres(database: database)
        }
        var jobConfiguration = JobsConfiguration()
        jobConfiguration.workersEnabled = false
        let jobs = JobsRuntime(transactions: transactions, stores: jobStores, clock: clock, configuration: jobConfiguration, logger: logger)
        let auth = try TestAuth.module(transactions: transactions, backend: opened, clock: clock, loginThrottle: loginThrottle, hasher: hasher)
        let catalog = try CatalogModule.live(transactions: transactions, stores: catalogStores, refreshInterval: settings.catalogRefreshSeconds)
        let stores: RegistrationStores = switch opened {
        case .sqlite: .sqlite(catalog: catalog.catalog.store, jobs: jobs.enqueuer)
        case .postgres: .postgres(catalog: catalog.catalog.store, jobs: jobs.enqueuer)
        }
        let module = RegistrationModule.live(
            transactions: transactions, stores: stores, catalog: catalog.catalog,
            accounts: auth.accountDirectory(credentialCacheSeconds: settings.credentialCacheSeconds), clock: clock, settings: settings,
            registrarFeed: registrarFeed, logger: logger
        )
        try module.register(in: jobs.registry)
        return RegistrationGateway(
            module: module, auth: auth.service, catalog: catalog, jobs: jobs, transactions: transactions, backend: opened, clock: clock,
            router: ModuleRouter(module, authenticator: TokenAuthenticator(service: auth.service)), cleanUpBody: cleanUp
        )
    }

    /// An admin account (created on first use) as the identity services act for.
    func adminIdentity() async throws -> Identity {
        let store = auth.store
        if let account = try await auth.transactions.read({ db in try store.find(username: "test-admin", in: db) }) { return account.identity }
        return try await auth.createAccount(username: "test-admin", email: nil, password: "correct horse battery", role: .admin).identity
    }

    /// Adds a student through the service; returns their account id.
    @discardableResult
    func student(_ redID: String, password: String = "password", email: String = "student@sdsu.edu") async throws -> Int64 {
        try await registration.students.addStudent(
            NewStudent(firstName: "Test", lastName: "Student \(redID)", redID: redID, password: password, email: email)
        ).accountID
    }

    /// Sets a class to have exactly `open` open seats.
    func openSeats(_ open: Int, in classID: Int64) async throws {
        let listing = try await registration.catalog.classListing(id: classID)!
        _ = try await registration.admin.setSeats(classID: classID, seats: listing.seats.enrolled + listing.seats.held + open)
    }

    func seats(of classID: Int64) async throws -> SeatCount {
        let store = catalog.catalog.store
        return try await transactions.read { db in try store.seatCounts(of: [classID], in: db)[classID]! }
    }

    /// Jobs of a kind, as (args JSON, run_at ms).
    func jobs(kind: String) async throws -> [(args: String, runAt: Int64)] {
        if case .sqlite(let database) = backend {
            return try await database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT args, run_at FROM jobs WHERE kind = ? ORDER BY id", arguments: [kind]).map { ($0[0], $0[1]) }
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try await jobs.service.list(states: nil, queue: nil, kind: kind, limit: 1000).reversed().map { job in
            (String(decoding: try encoder.encode(job.args), as: UTF8.self), Int64((job.scheduledAt.timeIntervalSince1970 * 1000).rounded()))
        }
    }
}

/// Files under `Tests/CatalogTests/Fixtures`, read from the source tree.
enum Fixture {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CatalogTests").appendingPathComponent("Fixtures").appendingPathComponent(name)
    }

    /// The real umd.io course list for summer 2020 (MIT licence, `umdio-LICENSE`): 1.6 MB.
    static func umdio() throws -> Data { try Data(contentsOf: url("umdio-202005.json")) }
}
