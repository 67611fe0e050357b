public import Foundation
public import GatewayCore
public import Gradebook
public import GradebookSimulator
public import HTTPClient
import Hummingbird
public import HummingbirdTesting
public import Jobs
public import Logging
import PostgresStores
import SQLiteStores
public import Storage
public import TestSupport

/// Gradebook's real module on a test's scratch database (its tables migrated by the test), for
/// its own suites and for the suites of modules that consume it (Push's QuickHAC devices store
/// their accounts through it): the stores of the database's backend, a vault with a key file of
/// its own, development sources allowed on loopback and private networks, as in the application.
public enum TestGradebook {
    /// Development sources may use loopback and private networks, as in the application.
    public static let developmentDestinations: DestinationAllowList = [
        "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7",
    ]

    /// The module, its vault, and how to remove the vault's key file.
    public static func module(
        transactions: any TransactionRunner, backend: TestBackend.OpenedBackend, jobs: JobsRuntime, clock: any GatewayClock,
        timeoutSeconds: Int = 10, cacheSeconds: Int = 0, additionalCAFile: String? = nil, maxFileBytes: Int = 10 << 20, publicURL: URL? = nil,
        logger: Logger
    ) throws -> (module: GradebookModule, vault: VaultKeyProvider, cleanUp: @Sendable () -> Void) {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("gradebook-vault-\(UUID().uuidString).key").path
        let vault = try VaultKeyProvider(source: .file(VaultKeyFile(path: keyFile)))
        let stores: GradebookStores = switch backend {
        case .sqlite: .sqlite()
        case .postgres: .postgres()
        }
        let module = GradebookModule.live(
            transactions: transactions, stores: stores, vault: vault, jobs: jobs.enqueuer, clock: clock,
            settings: GradebookModule.Settings(
                timeoutSeconds: timeoutSeconds, cacheSeconds: cacheSeconds, additionalCAFile: additionalCAFile, maxFileBytes: maxFileBytes,
                developmentDestinations: developmentDestinations, publicURL: publicURL
            ),
            logger: logger
        )
        try module.register(in: jobs.registry)
        return (module, vault, { try? FileManager.default.removeItem(atPath: keyFile) })
    }

    /// Source 1 as `serve --demo` defines it (8 at once, 6000 a minute, a development source),
    /// at `baseURL`.
    public static func demoSource(_ baseURL: URL) -> GradebookSource {
        GradebookSource(
            id: 1, name: "Gradebook simulator (demo)", baseURL: baseURL, pollIntervalSeconds: 300, maxConcurrency: 8, requestsPerMinute: 6000,
            development: true
        )
    }
}

/// The gradebook simulator in this process on a live loopback port.
public enum InProcessSimulator {
    /// Runs `body` with the simulator serving `data` (the demo's unless given) at `/<prefix>/`: the
    /// URL of its records (a source's `baseURL`), and a client of it.
    public static func with(
        _ data: SimulatorData? = nil, prefix: String = "cgi-bin",
        _ body: @Sendable @escaping (_ gradesURL: URL, _ client: any TestClientProtocol) async throws -> Void
    ) async throws {
        let router = Router()
        GradebookSimulator(data: data ?? .demo, adminToken: nil).register(on: router, prefix: prefix)
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await upstream.test(.live) { simulator in
            guard let port = simulator.port else { throw BuiltProducts.Missing(description: "the simulator has no port") }
            try await body(URL(string: "http://127.0.0.1:\(port)/\(prefix)/grades.json")!, simulator)
        }
    }
}

/// The Canvas stand-in (``CanvasSimulator``) in this process on a live loopback port.
public enum InProcessCanvas {
    /// Runs `body` with `canvas` serving at the root of a live loopback port: its origin (a
    /// canvas source's `baseURL`).
    public static func with(_ canvas: CanvasSimulator, _ body: @Sendable @escaping (_ origin: URL) async throws -> Void) async throws {
        try await with(canvas) { origin, _ in try await body(origin) }
    }

    /// The same, with a client of the stand-in too (a browser's requests to Canvas).
    public static func with(
        _ canvas: CanvasSimulator, _ body: @Sendable @escaping (_ origin: URL, _ client: any TestClientProtocol) async throws -> Void
    ) async throws {
        let router = Router()
        canvas.register(on: router)
        let upstream = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await upstream.test(.live) { server in
            guard let port = server.port else { throw BuiltProducts.Missing(description: "the Canvas stand-in has no port") }
            try await body(URL(string: "http://127.0.0.1:\(port)")!, server)
        }
    }

    /// A development canvas source at `origin` (loopback and http allowed).
    public static func source(_ origin: URL, id: Int64 = 7, developerKey: CanvasSimulator.DeveloperKey? = nil) -> GradebookSource {
        GradebookSource(
            id: id, name: "Canvas (stand-in)", kind: .canvas, baseURL: origin, authStyle: .bearer, pollIntervalSeconds: 300, maxConcurrency: 8,
            requestsPerMinute: 6000, development: true, oauthClientID: developerKey?.id
        )
    }
}
