import Logging
import Foundation
import GatewayCore
import NIOCore
import NIOFoundationEssentialsCompat
public import HTTPTypes
public import Hummingbird

/// Enforces a ``RouteAccess`` level: authenticates the caller and checks the role.
public struct AccessMiddleware: RouterMiddleware {
    public typealias Context = GatewayContext
    let access: RouteAccess
    let authenticator: any Authenticator
    let operatorCanAct: Bool

    public init(access: RouteAccess, authenticator: any Authenticator, operatorCanAct: Bool = false) {
        self.access = access
        self.authenticator = authenticator
        self.operatorCanAct = operatorCanAct
    }

    public func handle(
        _ request: Request, context: GatewayContext,
        next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if context.identity == nil {
            context.identity = try await authenticator.authenticate(request, context: context)
        }
        if !access.admits(context.identity, operatorCanAct: operatorCanAct) {
            guard let identity = context.identity else { throw Problem.unauthenticated() }
            if identity.role == .operator, case .console(.act) = access {
                throw Problem.forbidden("Operators may only read here: this gateway does not let them act (GATEWAY_OPERATOR_CAN_ACT).")
            }
            throw Problem.forbidden()
        }
        if let identity = context.identity {
            context.logger[metadataKey: "account"] = "\(identity.accountID)"
        }
        return try await next(request, context)
    }
}

/// Builds route groups whose access level is declared up front and recorded.
public struct RouteGuard: Sendable {
    public let registry: RouteRegistry
    public let authenticator: any Authenticator
    /// Whether operators may act on the console's routes (`GATEWAY_OPERATOR_CAN_ACT`); they may
    /// always read them.
    public let operatorCanAct: Bool
    /// Where every admin write (POST, PUT, PATCH, DELETE under `/v1/admin/`) is recorded,
    /// whichever module's route it is; nil records nothing (module tests).
    public let audit: (any AuditRecording)?

    public init(
        registry: RouteRegistry, authenticator: any Authenticator, operatorCanAct: Bool = false, audit: (any AuditRecording)? = nil
    ) {
        self.registry = registry
        self.authenticator = authenticator
        self.operatorCanAct = operatorCanAct
        self.audit = audit
    }

    /// A group under `prefix` whose routes all require `access`.
    public func group(
        _ router: some RouterMethods<GatewayContext>, _ prefix: String, access: RouteAccess
    ) -> GuardedGroup {
        var group = router.group(RouterPath(prefix))
        if access != .public {
            group = group.add(middleware: AccessMiddleware(access: access, authenticator: authenticator, operatorCanAct: operatorCanAct))
        }
        return GuardedGroup(group: group, prefix: prefix, access: access, registry: registry, audit: audit)
    }
}

/// A route group with one declared access level. Add routes only through its methods.
public struct GuardedGroup: Sendable {
    let group: RouterGroup<GatewayContext>
    let prefix: String
    public let access: RouteAccess
    let registry: RouteRegistry
    let audit: (any AuditRecording)?

    public typealias Handler = @Sendable (Request, GatewayContext) async throws -> Response

    @discardableResult
    public func on(_ path: String, method: HTTPRequest.Method, use handler: @escaping Handler) -> GuardedGroup {
        let full = path.isEmpty ? prefix : "\(prefix)/\(path)"
        registry.record(method: method, path: full, access: access)
        if let audit, AuditLog.records(method: method.rawValue, path: full) {
            group.on(RouterPath(path), method: method, use: Self.audited(handler, method: method, route: RouterPath(full).description, audit: audit))
        } else {
            group.on(RouterPath(path), method: method, use: handler)
        }
        return self
    }

    /// `handler`, recording the write once it answered (or threw): the one place every admin
    /// write is audited. The body is read first (within the upload limit) so that its
    /// arguments can be kept, then handed to the handler as it came.
    static func audited(_ handler: @escaping Handler, method: HTTPRequest.Method, route: String, audit: any AuditRecording) -> Handler {
        let action = AuditLog.action(method: method.rawValue, route: route)
        return { request, context in
            var request = request
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            request.body = RequestBody(buffer: buffer)
            var target: [String: String] = [:]
            for (key, value) in context.parameters { target[String(key)] = String(value) }
            func record(_ status: Int) async {
                guard let identity = context.identity else { return }
                await audit.record(AuditEntry(
                    at: Date(), accountID: identity.accountID, username: identity.username, role: identity.role.rawValue,
                    method: method.rawValue, route: route, action: action, target: target, status: status,
                    arguments: AuditLog.arguments(body: Data(buffer: buffer), query: request.uri.query)
                ))
            }
            do {
                let response = try await handler(request, context)
                await record(Int(response.status.code))
                return response
            } catch {
                let status: HTTPResponse.Status = switch error {
                case let problem as Problem: problem.status
                case let error as any ProblemConvertible: error.problem.status
                case let error as HTTPError: error.status
                default: .internalServerError
                }
                await record(Int(status.code))
                throw error
            }
        }
    }

    @discardableResult
    public func get(_ path: String = "", use handler: @escaping Handler) -> GuardedGroup { on(path, method: .get, use: handler) }
    @discardableResult
    public func post(_ path: String = "", use handler: @escaping Handler) -> GuardedGroup { on(path, method: .post, use: handler) }
    @discardableResult
    public func put(_ path: String = "", use handler: @escaping Handler) -> GuardedGroup { on(path, method: .put, use: handler) }
    @discardableResult
    public func patch(_ path: String = "", use handler: @escaping Handler) -> GuardedGroup { on(path, method: .patch, use: handler) }
    @discardableResult
    public func delete(_ path: String = "", use handler: @escaping Handler) -> GuardedGroup { on(path, method: .delete, use: handler) }
}
