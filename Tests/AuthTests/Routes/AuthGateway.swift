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

    static func make(
        _ backend: TestBackend = .sqlite, loginThrottle: LoginThrottle.Limits = .init(), signUpsPerHour: Int = 30
    ) async throws -> AuthGateway {
        let (transactions, opened, cleanUp) = try await backend.database("auth-routes", sqlite: [AuthSchema.self], postgres: [AuthSchema.self])
        let clock = ManualClock(Date())
        return try AuthGateway(transactions: transactions, backend: opened, clock: clock, loginThrottle: loginThrottle, signUpsPerHour: signUpsPerHour, cleanUp: cleanUp)
    }

    /// A second instance of Auth on this gateway's database, with connections of its own (as a
    /// second instance of the application would have) and the same clock.
    func secondInstance(loginThrottle: LoginThrottle.Limits = .init(), signUpsPerHour: Int = 30) throws -> AuthGateway {
        let (transactions, opened, close) = try backend.secondInstance(sqlite: [AuthSchema.self])
        return try AuthGateway(
            transactions: transactions, backend: opened, clock: clock, loginThrottle: loginThrottle, signUpsPerHour: signUpsPerHour, cleanUp: close
        )
    }
}

extension AuthGateway {
    fileprivate init(
        transactions: any TransactionRunner, backend: TestBackend.OpenedBackend, clock: ManualClock, loginThrottle: LoginThrottle.Limits,
        signUpsPerHour: Int, cleanUp: @escaping @Sendable () async -> Void
    ) throws {
        let module = try TestAuth.module(
            transactions: transactions, backend: backend, clock: clock, loginThrottle: loginThrottle, signUpsPerHour: signUpsPerHour
        )
        self.init(
            module: module, backend: backend, clock: clock, router: ModuleRouter(module, authenticator: TokenAuthenticator(service: module.service)),
            cleanUpBody: cleanUp
        )
    }
}
