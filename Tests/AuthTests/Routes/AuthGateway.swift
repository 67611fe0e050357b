import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HummingbirdTesting
import Storage
import TestSupport

/// The Auth module alone on a router, on a fresh database of either backend with Auth's tables:
/// its own token authenticator guards its routes, as in the application.
struct AuthGateway: AuthenticatedTestWorld {
    let module: AuthModule
    let backend: TestBackend.OpenedBackend
    let clock: ManualClock
    let router: ModuleRouter<AuthModule>
    let cleanUpBody: @Sendable () async -> Void

    var auth: AuthService { module.service }

    static func make(_ backend: TestBackend = .sqlite, loginThrottle: LoginThrottle.Limits = .init()) async throws -> AuthGateway {
        let (transactions, opened, cleanUp) = try await backend.database("auth-routes", sqlite: [AuthSchema.self], postgres: [AuthSchema.self])
        let clock = ManualClock(Date())
        let module = try TestAuth.module(transactions: transactions, backend: opened, clock: clock, loginThrottle: loginThrottle)
        return AuthGateway(
            module: module, backend: opened, clock: clock, router: ModuleRouter(module, authenticator: TokenAuthenticator(service: module.service)),
            cleanUpBody: cleanUp
        )
    }
}
