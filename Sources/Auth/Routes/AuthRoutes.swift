import Storage
import NIOFoundationEssentialsCompat
public import GatewayHTTP
import Foundation
import GatewayCore
public import Hummingbird

/// HTTP binding of the Auth module: sign-up, tokens, the caller's account, and admin account
/// management.
public struct AuthRoutes: ModuleRoutes {
    let service: AuthService
    /// Campus sign-in, when a provider is configured.
    let campus: CampusSignIn?
    /// The audit log, listed at `GET /v1/admin/audit` (admins and operators).
    let audit: AuditService?

    public init(service: AuthService, campus: CampusSignIn? = nil, audit: AuditService? = nil) {
        self.audit = audit
        self.service = service
        self.campus = campus
    }

    struct SignUp: Decodable {
        let username: String
        let password: String
        let email: String?
    }

    struct AdminCreate: Decodable {
        let username: String
        let password: String
        let email: String?
        let role: Role
    }

    struct PasswordChange: Decodable {
        let currentPassword: String
        let newPassword: String
    }

    /// `PATCH /v1/me`: `displayName` set, or null (or blank) to show the profile's name again.
    /// A body without it changes nothing.
    struct ProfileUpdate: Decodable {
        let displayName: String?
        let setsDisplayName: Bool

        enum CodingKeys: String, CodingKey { case displayName }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            setsDisplayName = container.contains(.displayName)
            displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        }
    }

    struct AdminUpdate: Decodable {
        let disabled: Bool?
        let role: Role?
    }

    struct TokenRequest: Decodable {
        let username: String?
        let password: String?
        /// The one-time code a campus sign-in ended with (`#signin=`), instead of a password.
        let signinCode: String?
        let lifetimeMinutes: Int?
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service, campus = self.campus
        if let audit {
            guarded.group(router, "v1/admin/audit", access: .console(.read))
                .get { request, _ in
                    let query = request.uri.queryParameters
                    let limit = try pageLimit(query["limit"].map(String.init))
                    let before = try PageCursor.lastID(query["cursor"].map(String.init))
                    let filter = try Self.auditFilter(
                        actor: query["actor"].map(String.init), action: query["action"].map(String.init), since: query["since"].map(String.init)
                    )
                    let records = try await audit.list(filter, before: before, limit: limit + 1)
                    let page = Page(fetched: records, limit: limit, id: \.id)
                    return try GatewayJSON.response(page, nextCursor: page.nextCursor, for: request)
                }
        }

        guarded.group(router, "v1/accounts", access: .public)
            .post { request, context in
                guard service.settings.passwordSignIn == .everyone else { throw AuthError.passwordSignInOff }
                let body = try await GatewayJSON.decode(SignUp.self, from: request, context: context)
                let account = try await service.createAccount(
                    username: body.username, email: body.email, password: body.password, role: .student,
                    clientAddress: context.clientAddress
                )
                return try GatewayJSON.response(
                    account.view, status: .created, headers: [.location: "/v1/me"]
                )
            }

        guarded.group(router, "v1/auth/token", access: .public)
            .post { request, context in
                let issued: AuthService.IssuedToken
                var headers: HTTPFields = [.cacheControl: "no-store"]
                switch try await Self.grant(from: request, context: context) {
                case .password(let username, let password, let lifetime):
                    issued = try await service.issueToken(
                        username: username, password: password, lifetimeMinutes: lifetime, clientAddress: context.clientAddress
                    )
                case .signInCode(let code, let lifetime):
                    guard let campus else { throw AuthError.invalidSignInCode }
                    let cookie = CampusSignInRoutes.codeBinding
                    issued = try await campus.redeem(
                        signInCode: code, browserBinding: cookie.value(in: request.headers[values: .cookie]), lifetimeMinutes: lifetime
                    )
                    headers[.setCookie] = cookie.cleared(secure: campus.settings.secureCookies)
                }
                return try GatewayJSON.response(issued, status: .created, headers: headers)
            }

        guarded.group(router, "v1/auth/token", access: .authenticated)
            .delete { _, context in
                let identity = try context.requireIdentity()
                guard let tokenID = identity.tokenID else {
                    throw Problem.badRequest("Revoke a token by presenting it as 'Authorization: Bearer <token>'.")
                }
                try await service.revoke(tokenID: tokenID)
                return Response(status: .noContent)
            }

        guarded.group(router, "v1/me", access: .authenticated)
            .get { _, context in
                let identity = try context.requireIdentity()
                guard let (account, name) = try await service.accountWithName(id: identity.accountID) else { throw Problem.notFound() }
                return try GatewayJSON.response(account.view(displayName: name, consoleCanAct: Self.consoleCanAct(account.role, guarded)))
            }
            .patch { request, context in
                let identity = try context.requireIdentity()
                let body = try await GatewayJSON.decode(ProfileUpdate.self, from: request, context: context)
                let updated = body.setsDisplayName
                    ? try await service.chooseDisplayName(body.displayName, accountID: identity.accountID)
                    : try await service.accountWithName(id: identity.accountID)
                guard let (account, name) = updated else { throw Problem.notFound() }
                return try GatewayJSON.response(account.view(displayName: name, consoleCanAct: Self.consoleCanAct(account.role, guarded)))
            }

        guarded.group(router, "v1/me/password", access: .authenticated)
            .put { request, context in
                let identity = try context.requireIdentity()
                let body = try await GatewayJSON.decode(PasswordChange.self, from: request, context: context)
                try await service.changePassword(
                    accountID: identity.accountID, current: body.currentPassword, new: body.newPassword,
                    keepingToken: identity.tokenID, clientAddress: context.clientAddress
                )
                return Response(status: .noContent)
            }

        guarded.group(router, "v1/admin/accounts/:accountId", access: .role(.admin))
            .patch { request, context in
                let identity = try context.requireIdentity()
                guard let id = context.parameters.get("accountId").flatMap(Int64.init) else {
                    throw AuthError.accountNotFound(nil) // no account can have it
                }
                let body = try await GatewayJSON.decode(AdminUpdate.self, from: request, context: context)
                let account = try await service.updateAccount(id: id, disabled: body.disabled, role: body.role, by: identity)
                return try GatewayJSON.response(account.view)
            }

        guarded.group(router, "v1/admin/accounts", access: .role(.admin))
            .post { request, context in
                let body = try await GatewayJSON.decode(AdminCreate.self, from: request, context: context)
                let account = try await service.createAccount(
                    username: body.username, email: body.email, password: body.password, role: body.role
                )
                return try GatewayJSON.response(account.view, status: .created)
            }
            .get { request, _ in
                let limit = try pageLimit(request.uri.queryParameters["limit"].map(String.init))
                let after = try request.uri.queryParameters["cursor"].map { try PageCursor(token: String($0)) }
                let afterID = after.flatMap { $0.after.first.flatMap(Int64.init) } ?? 0
                let accounts = try await service.accounts(after: afterID, limit: limit + 1)
                let page = Array(accounts.prefix(limit))
                let next = accounts.count > limit ? page.last.map { PageCursor(after: ["\($0.id ?? 0)"]).token } : nil
                return try GatewayJSON.response(page: Page(items: page.map(\.view), nextCursor: next), for: request)
            }

        // Thirty starts a minute from one address: each writes a row until its flow expires.
        CampusSignInRoutes(campus: campus, starts: RateLimit(limit: 30, window: 60), callbacks: RateLimit(limit: 60, window: 60)).register(with: guarded, on: router, passwordSignIn: service.settings.passwordSignIn)
    }

    /// What a client trades for a token.
    enum Grant {
        case password(username: String, password: String, lifetimeMinutes: Int?)
        case signInCode(String, lifetimeMinutes: Int?)
    }

    /// A password (HTTP Basic or the JSON body) or a campus sign-in code (`{"signinCode"}`).
    /// Whether `role` may act in the console here (``RouteAccess/console(_:)``'s `.act`).
    static func consoleCanAct(_ role: Role, _ guarded: RouteGuard) -> Bool {
        role == .admin || (role == .operator && guarded.operatorCanAct)
    }

    static func grant(from request: Request, context: GatewayContext) async throws -> Grant {
        if request.headers[.authorization] == nil {
            let body = try await GatewayJSON.decode(TokenRequest.self, from: request, context: context)
            let lifetime = body.lifetimeMinutes ?? request.uri.queryParameters["lifetimeMinutes"].flatMap { Int(String($0)) }
            if let code = body.signinCode { return .signInCode(code, lifetimeMinutes: lifetime) }
            guard let username = body.username, let password = body.password else {
                throw Problem.badRequest(
                    "Send {\"username\", \"password\"} or {\"signinCode\"} as JSON, or use HTTP Basic.",
                    invalidFields: [body.username == nil ? "username" : "password"]
                )
            }
            return .password(username: username, password: password, lifetimeMinutes: lifetime)
        }
        let (username, password, lifetime) = try await credentials(from: request, context: context)
        return .password(username: username, password: password, lifetimeMinutes: lifetime)
    }

    /// Credentials from HTTP Basic or from the JSON body; the lifetime from the body or `?lifetimeMinutes=`.
    static func credentials(from request: Request, context: GatewayContext) async throws -> (String, String, Int?) {
        var lifetime = request.uri.queryParameters["lifetimeMinutes"].flatMap { Int(String($0)) }
        if let header = request.headers[.authorization], let (user, pass) = TokenAuthenticator.basic(header) {
            let buffer = try await request.body.collect(upTo: context.maxUploadSize)
            if buffer.readableBytes > 0,
                let body = try? GatewayJSON.decoder().decode(TokenRequest.self, from: Data(buffer: buffer))
            {
                lifetime = body.lifetimeMinutes ?? lifetime
            }
            return (user, pass, lifetime)
        }
        let body = try await GatewayJSON.decode(TokenRequest.self, from: request, context: context)
        guard let username = body.username, let password = body.password else {
            throw Problem.badRequest(
                "Send {\"username\", \"password\"} as JSON or use HTTP Basic.",
                invalidFields: [body.username == nil ? "username" : "password"]
            )
        }
        return (username, password, body.lifetimeMinutes ?? lifetime)
    }
}

extension AuthRoutes {
    /// `actor` (a username or an account id), `action` (`jobs.retry`) and `since` (RFC 3339) of
    /// `GET /v1/admin/audit`, each at most 200 characters.
    static func auditFilter(actor: String?, action: String?, since: String?) throws -> AuditFilter {
        for (name, value) in [("actor", actor), ("action", action), ("since", since)] {
            if let value, value.isEmpty || value.count > 200 {
                throw Problem.badRequest("'\(name)' is 1 to 200 characters.", invalidFields: [name])
            }
        }
        var date: Date?
        if let since {
            guard let parsed = try? Date(since, strategy: .iso8601) else {
                throw Problem.badRequest("'since' is an RFC 3339 time, like 2026-01-01T00:00:00Z.", invalidFields: ["since"])
            }
            date = parsed
        }
        return AuditFilter(actor: actor, action: action, since: date)
    }
}
