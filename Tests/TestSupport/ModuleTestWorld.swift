public import HummingbirdTesting
public import Jobs
public import Storage

/// What a module's HTTP suite holds: its module on a ``ModuleRouter``, the database it opened,
/// and how to throw that away. The harnesses (``ModuleHarness``, and the per-module ones that
/// build a module with what it consumes) conform, and share the calls below.
public protocol ModuleTestWorld: Sendable {
    associatedtype Module: GatewayModule
    var router: ModuleRouter<Module> { get }
    var backend: TestBackend.OpenedBackend { get }
    /// Closes and removes the database.
    var cleanUpBody: @Sendable () async -> Void { get }
}

extension ModuleTestWorld {
    /// Throws the database away (in the background: a `defer` can't wait).
    public func cleanUp() { Task { [cleanUpBody] in await cleanUpBody() } }

    /// Runs `body` against the router (no sockets).
    public func withRouter(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await router.withRouter(body)
    }

    /// Runs `body` against a real server on 127.0.0.1.
    public func withLiveServer(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await router.withLiveServer(body)
    }

    /// The SQLite database, for suites that look at rows directly (they run on SQLite).
    public var database: GatewayDatabase {
        guard case .sqlite(let database) = backend else { preconditionFailure("this suite runs on SQLite") }
        return database
    }
}
