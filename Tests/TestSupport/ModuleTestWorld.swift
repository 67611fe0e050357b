public import HummingbirdTesting
public import Jobs
public import ModuleKit
public import Storage
import Synchronization
public import SQLiteStorage

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

    /// Runs `body` with the port of a real server on 127.0.0.1 and returns its result.
    public func withLiveServerResult<T: Sendable>(_ body: @Sendable @escaping (Int) async throws -> T) async throws -> T {
        let result = Mutex<T?>(nil)
        try await withLiveServer { client in
            guard let port = client.port else { throw NoResult(description: "the live server has no port") }
            let value = try await body(port)
            result.withLock { $0 = value }
        }
        guard let value = result.withLock({ $0 }) else { throw NoResult(description: "the live server's body returned nothing") }
        return value
    }

    /// The SQLite database, for suites that look at rows directly (they run on SQLite).
    public var database: GatewayDatabase {
        guard case .sqlite(let database) = backend else { preconditionFailure("this suite runs on SQLite") }
        return database
    }
}

/// A live server that gave its body no port, or a body that returned nothing.
struct NoResult: Error, CustomStringConvertible {
    let description: String
}
