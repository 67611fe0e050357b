import GatewayHTTP
import Storage
import Logging
import GRDB
import Auth
import Foundation
import GatewayApp
import GatewayCore
import Hummingbird
import HummingbirdTesting
import NIOCore

/// A gateway on a fresh SQLite file in a temporary folder, with a manual clock and cheap
/// password hashing (the real parameters are checked in their own test).
struct TestGateway {
    let app: GatewayApplication
    let clock: ManualClock
    let directory: URL

    init(configure: (inout GatewayConfiguration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.passwordHashingThreads = 2
        config.logLevel = .critical
        config.port = 0
        configure(&config)
        clock = ManualClock(Date())
        app = try GatewayApplication(configuration: config, clock: clock)
    }

    func makeApplication() throws -> some ApplicationProtocol { try app.makeApplication() }

    /// Runs `body` against the real router (no sockets).
    func withRouter(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await makeApplication().test(.router) { client in try await body(client) }
    }

    /// Runs `body` against a real server on 127.0.0.1.
    func withLiveServer(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await makeApplication().test(.live) { client in try await body(client) }
    }

    /// Removes the test's folder; on PostgreSQL the connections close in the background.
    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
        if case .postgres = app.storage { Task { [storage = app.storage] in await storage.shutdown() } }
    }

    /// Creates an account through the service (not the API) and returns a bearer token for it.
    func account(_ username: String, role: Role, password: String = "correct horse battery") async throws -> String {
        _ = try await app.accounts.createAccount(username: username, email: nil, password: password, role: role)
        let issued = try await app.accounts.issueToken(username: username, password: password, lifetimeMinutes: nil, clientAddress: nil)
        return issued.token
    }

    /// The account id of `username` (nil if there is none).
    func accountID(_ username: String) async throws -> Int64? {
        let auth = app.accounts
        return try await auth.transactions.read { db in try auth.store.find(username: username, in: db)?.id }
    }
}
