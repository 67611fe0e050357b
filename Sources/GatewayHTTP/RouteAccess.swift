public import GatewayCore
public import HTTPTypes
public import Hummingbird
import Synchronization

/// Who may call a route. Every route is registered with one, explicitly.
public enum RouteAccess: Sendable, Equatable, CustomStringConvertible {
    /// Anyone, without credentials (health checks, sign-up, compatibility protocols that
    /// authenticate in their own way).
    case `public`
    /// Any authenticated account.
    case authenticated
    /// Accounts whose role is at least the given one.
    case role(Role)
    /// The operator console's job, queue, schedule, instance, stats and audit routes: admins,
    /// and operators, who may always read and may act only where the gateway allows it
    /// (`GATEWAY_OPERATOR_CAN_ACT=true`, ``RouteGuard/operatorCanAct``).
    case console(ConsoleUse)

    /// What a console route does with what it reaches.
    public enum ConsoleUse: String, Sendable, Equatable {
        case read
        case act
    }

    public var description: String {
        switch self {
        case .public: "public"
        case .authenticated: "authenticated"
        case .role(let role): "role>=\(role.rawValue)"
        case .console(let use): "console-\(use.rawValue)"
        }
    }

    /// Whether an identity (nil when anonymous) satisfies this access level; `operatorCanAct`
    /// says whether operators may act on console routes.
    public func admits(_ identity: Identity?, operatorCanAct: Bool = false) -> Bool {
        switch self {
        case .public: true
        case .authenticated: identity != nil
        case .role(let minimum): identity.map { $0.role >= minimum } ?? false
        case .console(let use):
            switch identity?.role {
            case .admin: true
            case .operator: use == .read || operatorCanAct
            default: false
            }
        }
    }
}

/// Resolves the caller's identity from a request (bearer token, HTTP Basic, ...).
/// Implemented by the Auth module; injected so that feature modules need not import it.
public protocol Authenticator: Sendable {
    /// Returns the identity, nil when the request carries no credentials, or throws a problem
    /// when it carries invalid ones.
    func authenticate(_ request: Request, context: GatewayContext) async throws -> Identity?
}

/// The record of every route and the access it was declared with. The route-guard test
/// compares it with the router's own list, so a route added around it fails the build.
public final class RouteRegistry: Sendable {
    public struct Entry: Sendable, Hashable {
        public let method: String
        public let path: String
        public let access: String
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    public func record(method: HTTPRequest.Method, path: String, access: RouteAccess) {
        let normalized = RouterPath(path).description
        entries.withLock { $0.append(Entry(method: method.rawValue, path: normalized, access: access.description)) }
    }

    public var all: [Entry] { entries.withLock { $0 } }
}
