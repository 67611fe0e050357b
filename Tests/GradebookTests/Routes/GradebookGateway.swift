import Auth
import AuthTestSupport
import Contracts
import Foundation
import GRDB
import GatewayCore
import Gradebook
import GradebookSimulator
import GradebookTestSupport
import HTTPClient
import HummingbirdTesting
import Jobs
import Logging
import PostgresStores
import SQLiteStores
import Storage
import TestSupport

/// The Gradebook module alone on a router, as its HTTP suites need it: on a fresh SQLite file
/// with its own tables, Auth's accounts (whose stored gradebook accounts its rows are) and the
/// jobs table it enqueues polls into; a vault with a key of its own; Auth's service as the
/// authenticator (cheap hashing); a job runtime whose workers are off. Upstreams are real
/// servers on 127.0.0.1 that the suite starts.
struct GradebookGateway: AuthenticatedTestWorld {
    let module: GradebookModule
    let auth: AuthService
    let jobs: JobsRuntime
    let vault: VaultKeyProvider
    let transactions: any TransactionRunner
    let backend: TestBackend.OpenedBackend
    let clock: ManualClock
    let router: ModuleRouter<GradebookModule>
    let cleanUpBody: @Sendable () async -> Void

    static func make(
        _ backend: TestBackend = .sqlite, timeoutSeconds: Int = 10, cacheSeconds: Int = 0, additionalCAFile: String? = nil,
        maxFileBytes: Int = 10 << 20, publicURL: URL? = nil, logger: Logger? = nil
    ) async throws -> GradebookGateway {
        let (transactions, opened, cleanUp) = try await backend.database(
            "gradebook-routes", sqlite: [AuthSchema.self, JobsSchema.self, GradebookSchema.self],
            postgres: [AuthSchema.self, JobsSchema.self, GradebookSchema.self]
        )
        let clock = ManualClock(Date())
        let logger = logger ?? {
            var logger = Logger(label: "gradebook-tests")
            logger.logLevel = .critical
            return logger
        }()
        let jobStores: JobsStores = switch opened {
        case .sqlite(let database): .sqlite(database: database)
        case .postgres(let database): .postgres(database: database)
        }
        var jobConfiguration = JobsConfiguration()
        jobConfiguration.workersEnabled = false
        let jobs = JobsRuntime(transactions: transactions, stores: jobStores, clock: clock, configuration: jobConfiguration, logger: logger)
        let auth = try TestAuth.module(transactions: transactions, backend: opened, clock: clock, logger: logger)
        let (module, vault, removeKey) = try TestGradebook.module(
            transactions: transactions, backend: opened, jobs: jobs, clock: clock, timeoutSeconds: timeoutSeconds, cacheSeconds: cacheSeconds,
            additionalCAFile: additionalCAFile, maxFileBytes: maxFileBytes, publicURL: publicURL, logger: logger
        )
        return GradebookGateway(
            module: module, auth: auth.service, jobs: jobs, vault: vault, transactions: transactions, backend: opened, clock: clock,
            router: ModuleRouter(module, authenticator: TokenAuthenticator(service: auth.service)),
            cleanUpBody: { await cleanUp(); removeKey() }
        )
    }
}

extension GradebookGateway {
    /// Runs `body` with the gradebook simulator serving `data` in this process, at `/<prefix>/` on
    /// a live loopback port (``InProcessSimulator``), and a gateway (made by `make`) with the
    /// source `source` gives for the simulator's records URL; `body` gets the gateway and a client
    /// of the simulator itself.
    static func withSimulator(
        _ data: SimulatorData = .demo, prefix: String = "cgi-bin",
        make: @Sendable @escaping () async throws -> GradebookGateway = { try await GradebookGateway.make() },
        source: @Sendable @escaping (URL) -> GradebookSource,
        _ body: @Sendable @escaping (GradebookGateway, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await InProcessSimulator.with(data, prefix: prefix) { gradesURL, simulator in
            let gateway = try await make()
            defer { gateway.cleanUp() }
            _ = try await gateway.module.sources.put(source(gradesURL))
            try await body(gateway, simulator)
        }
    }
}
