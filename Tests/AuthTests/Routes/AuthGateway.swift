import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HummingbirdTesting
import Storage
import TestSupport

/// The Auth module alone on a router, on a fresh database of either backend with Auth's tables:
/// its own token authenticator guards its routes, as in the application.
struct AuthGateway {
    let module: AuthModule
    let clock: ManualClock
    let router: ModuleRouter<AuthModule>
    let cleanUpBody: @Sendable () async -> Void

    var auth: AuthService { module.service }

    static func make(_ backend: TestBackend = .sqlite, loginThrottle: LoginThrottle.Limits = .init()) async throws -> AuthGateway {
        let (transactions, opened, cleanUp) = try await backend.database("auth-routes", sqlite: [AuthSchema.self], postgres: [AuthSchema.self])
        let clock = ManualClock(Date())
        let module = try TestAuth.module(transactions: transactions, backend: opened, clock: clock, loginThrottle: loginThrottle)
        return AuthGateway(
            module: module, clock: clock, router: ModuleRouter(module, authenticator: TokenAuthenticator(service: module.service)),
            cleanUpBody: cleanUp
        )
    }

    /// Throws the database away (in the background: a `defer` can't wait).
    func cleanUp() { Task { [cleanUpBody] in await cleanUpBody() } }

    func withRouter(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await router.withRouter(body)
    }

    /// Creates an account through the service and returns a bearer token for it.
    func account(_ username: String, role: Role, password: String = "correct horse battery") async throws -> String {
        try await auth.testAccount(username, role: role, password: password)
    }
}
