import Foundation
public import GatewayCore
public import GatewayHTTP
public import Hummingbird
public import HummingbirdTesting
public import Jobs
public import ModuleKit
import Synchronization

/// One module mounted alone on a Hummingbird router, the way the application mounts it: its
/// route groups through a ``RouteGuard`` (so the real ``AccessMiddleware`` checks every
/// route's declared access), and every error answered by the real ``ErrorResponses`` with the
/// module's own renderers (problem+json, or a compatibility protocol's form). What the module
/// consumes from others is handed to its factory by the test: fakes of their contracts, or
/// real stores on a scratch database. Authentication is ``TestIdentities``' tokens, where the
/// application would ask Auth.
public struct ModuleRouter<Module: GatewayModule>: Sendable {
    public let module: Module
    public let identities: TestIdentities
    /// Who answers for a bearer token: ``identities`` unless the test passed Auth's own
    /// authenticator (a module whose rows are real accounts).
    let authenticator: any Authenticator
    /// Every route the module mounted, with its declared access.
    public let routes = RouteRegistry()

    public init(_ module: Module, identities: TestIdentities = TestIdentities(), authenticator: (any Authenticator)? = nil) {
        self.module = module
        self.identities = identities
        self.authenticator = authenticator ?? identities
    }

    /// The router: the module's routes behind the error middleware.
    public func makeRouter() -> Router<GatewayContext> {
        let router = Router(context: GatewayContext.self, options: HeadRequests.routerOptions)
        router.add(middleware: ModuleErrorMiddleware(errors: ErrorResponses(renderers: module.errorRenderers)))
        router.add(middleware: TestClientAddress())
        module.routes.register(with: RouteGuard(registry: routes, authenticator: authenticator), on: router)
        return router
    }

    /// Runs `body` against the router (no sockets).
    public func withRouter(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: makeRouter()).test(.router) { client in try await body(client) }
    }

    /// Runs `body` against a real server on 127.0.0.1 (a port of its own).
    public func withLiveServer(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            try await body(client)
        }
    }

    /// A bearer token for a made-up account (``TestIdentities/token(accountID:username:role:)``).
    public func token(accountID: Int64, username: String? = nil, role: Role = .student) -> String {
        identities.token(accountID: accountID, username: username ?? "account-\(accountID)", role: role)
    }
}

/// Turns what a route throws into the application's answer (``ErrorResponses``): the part of
/// the application's front door a module's tests need.
struct ModuleErrorMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let errors: ErrorResponses

    func handle(_ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return errors.response(for: error, request: request, context: context, requestID: UUID().uuidString)
        }
    }
}

/// The client address a test says a request comes from (``TestClientAddress/header``), as the
/// application's front door would take it from a trusted proxy; the socket peer's without it.
public struct TestClientAddress: RouterMiddleware {
    public typealias Context = GatewayContext
    /// The header a module's test sets to the address it wants the request counted under.
    public static let header = HTTPField.Name("X-Test-Client-Address")!

    public init() {}

    /// The header for `address`, to pass as a request's headers.
    public static func from(_ address: String) -> HTTPFields { [header: address] }

    public func handle(_ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response) async throws -> Response {
        var context = context
        if let address = request.headers[Self.header] { context.clientAddress = address }
        return try await next(request, context)
    }
}

/// Bearer tokens for accounts a module's test makes up: ``token(accountID:username:role:)``
/// issues one, and as the ``Authenticator`` it answers with that identity, as Auth does for a
/// real token. An unknown bearer token is refused with the same 401 problem Auth gives; no
/// token is no identity (the route's access level decides).
public final class TestIdentities: Authenticator, Sendable {
    private let issued = Mutex<[String: Identity]>([:])

    public init() {}

    public func token(accountID: Int64, username: String, role: Role) -> String {
        let token = "test-\(accountID)-\(UUID().uuidString)"
        issued.withLock { $0[token] = Identity(accountID: accountID, username: username, role: role) }
        return token
    }

    public func authenticate(_ request: Request, context: GatewayContext) async throws -> Identity? {
        guard let header = request.headers[.authorization] else { return nil }
        guard header.hasPrefix("Bearer "), let identity = issued.withLock({ $0[String(header.dropFirst(7))] }) else {
            throw Problem.unauthenticated()
        }
        return identity
    }
}
