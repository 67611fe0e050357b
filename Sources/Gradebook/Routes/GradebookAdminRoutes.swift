import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// Admins register gradebook sources at `/v1/admin/gradebook/sources`.
struct GradebookAdminRoutes: Sendable {
    let service: GradebookSourceService

    struct SourceBody: Decodable {
        let id: Int64?
        let name: String
        let kind: String?
        let baseUrl: String
        let authStyle: String?
        let pollIntervalSeconds: Int?
        let maxConcurrency: Int?
        let requestsPerMinute: Int?
        let development: Bool?
        let oauthClientId: String?
        /// A moodle source's web service (`moodle_mobile_app` when left out).
        let service: String?
        /// Write-only: sealed at once, never answered; left out on PUT, the stored one stays.
        let oauthClientSecret: String?

        func source(id pathID: Int64?) throws -> GradebookSource {
            guard let id = pathID ?? id else { throw GradebookError.invalid(field: "id", message: "id is required.") }
            if let pathID, let id = self.id, id != pathID { throw GradebookError.invalid(field: "id", message: "The body's id differs from the path's.") }
            guard let kind = GradebookSource.Kind(rawValue: kind ?? "calpoly") else {
                throw GradebookError.invalid(field: "kind", message: "kind must be one of: \(GradebookSource.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard let style = GradebookSource.AuthStyle(rawValue: authStyle ?? kind.defaultAuthStyle.rawValue) else {
                throw GradebookError.invalid(field: "authStyle", message: "authStyle must be one of: \(GradebookSource.AuthStyle.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard let url = URL(string: baseUrl), url.scheme != nil else {
                throw GradebookError.invalid(field: "baseUrl", message: "baseUrl must be an absolute http or https URL.")
            }
            let defaults = GradebookSource(id: id, name: name, baseURL: url)
            return GradebookSource(
                id: id, name: name, kind: kind, baseURL: url, authStyle: style,
                pollIntervalSeconds: pollIntervalSeconds ?? defaults.pollIntervalSeconds, maxConcurrency: maxConcurrency ?? defaults.maxConcurrency,
                requestsPerMinute: requestsPerMinute ?? defaults.requestsPerMinute, development: development ?? false,
                oauthClientID: oauthClientId, moodleService: kind == .moodle ? service ?? GradebookSource.defaultMoodleService : service
            )
        }
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/admin/gradebook/sources", access: .role(.admin))
        group.get { _, _ in
            let (health, now) = try await service.health()
            var items: [GradebookViews.Source] = []
            for source in try await service.sources() {
                items.append(GradebookViews.Source(source, hasClientSecret: try await service.hasClientSecret(id: source.id), health: health[source.id], now: now))
            }
            return try GatewayJSON.response(["items": items])
        }
        group.post { request, context in
            let body = try await GatewayJSON.decode(SourceBody.self, from: request, context: context)
            let created = try await service.create(try body.source(id: nil), clientSecret: body.oauthClientSecret)
            return try GatewayJSON.response(
                GradebookViews.Source(created, hasClientSecret: body.oauthClientSecret != nil), status: .created,
                headers: [.location: "/v1/admin/gradebook/sources/\(created.id)"]
            )
        }
        group.get(":sourceId") { _, context in
            let source = try await service.source(id: try Self.id(context))
            let (health, now) = try await service.health()
            return try GatewayJSON.response(
                GradebookViews.Source(source, hasClientSecret: try await service.hasClientSecret(id: source.id), health: health[source.id], now: now)
            )
        }
        group.put(":sourceId") { request, context in
            // Creates when missing: an id no source can have is the request's mistake, not a 404.
            guard let id = context.parameters.get("sourceId").flatMap(Int64.init), id > 0 else {
                throw GradebookError.invalid(field: "sourceId", message: "The source id must be a positive integer of at most 64 bits.")
            }
            let body = try await GatewayJSON.decode(SourceBody.self, from: request, context: context)
            let source = try body.source(id: id)
            let created = try await service.put(source, clientSecret: body.oauthClientSecret)
            // The source's poll health is kept across a change of its settings; show it.
            let (health, now) = try await service.health()
            let view = GradebookViews.Source(source, hasClientSecret: try await service.hasClientSecret(id: source.id), health: health[source.id], now: now)
            return try GatewayJSON.response(view, status: created ? .created : .ok)
        }
        group.delete(":sourceId") { _, context in
            try await service.delete(id: try Self.id(context))
            return Response(status: .noContent)
        }
    }

    static func id(_ context: GatewayContext) throws -> Int64 {
        guard let raw = context.parameters.get("sourceId"), let id = Int64(raw), id > 0 else { throw GradebookError.sourceNotFound(String((context.parameters.get("sourceId") ?? "").prefix(40))) }
        return id
    }
}

/// Students' stored gradebook accounts at `/v1/me/gradebook-accounts`. Passwords go in, never out.
struct GradebookAccountRoutes: Sendable {
    let service: GradebookAccountService
    /// Asks Canvas to delete an OAuth account's token as the account is forgotten.
    let canvasOAuth: CanvasOAuthService

    /// `username` and `password` for a Cal Poly source, `accessToken` for a Canvas one, either
    /// for a Moodle one.
    struct AccountBody: Decodable {
        let sourceId: Int64
        let username: String?
        let password: String?
        let accessToken: String?

        /// The name and secret the source's style takes: an access token for a bearer source
        /// (Canvas), a username and password for a Basic one; the other style's fields are refused
        /// by name, never quietly used in their place.
        func credentials(for source: GradebookSource) throws -> (username: String, secret: String) {
            switch source.authStyle {
            case .wstoken:
                if let accessToken {
                    guard username == nil, password == nil else {
                        throw GradebookError.invalid(field: username != nil ? "username" : "password", message: "Send either an accessToken or a username and password, not both.")
                    }
                    return ("", accessToken)
                }
                guard let username, !username.isEmpty else { throw GradebookError.invalid(field: "username", message: "A moodle source needs a username and password, or an accessToken.") }
                guard let password else { throw GradebookError.invalid(field: "password", message: "A password is required.") }
                return (username, password)
            case .bearer:
                guard username == nil, password == nil else {
                    throw GradebookError.invalid(field: username != nil ? "username" : "password", message: "A \(source.kind.rawValue) source takes an accessToken, not a username and password.")
                }
                guard let accessToken else { throw GradebookError.invalid(field: "accessToken", message: "A \(source.kind.rawValue) source needs an accessToken.") }
                return ("", accessToken)
            case .basic:
                guard accessToken == nil else {
                    throw GradebookError.invalid(field: "accessToken", message: "A \(source.kind.rawValue) source takes a username and password, not an accessToken.")
                }
                guard let username else { throw GradebookError.invalid(field: "username", message: "A username is required.") }
                guard let password else { throw GradebookError.invalid(field: "password", message: "A password is required.") }
                return (username, password)
            }
        }
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/me/gradebook-accounts", access: .authenticated)
        group.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(["items": try await service.accounts(accountID: identity.accountID).map(GradebookViews.Account.init)])
        }
        group.post { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(AccountBody.self, from: request, context: context)
            let given = try body.credentials(for: try await service.sources.source(id: body.sourceId))
            let stored = try await service.add(
                accountID: identity.accountID, sourceID: body.sourceId,
                credentials: GradebookCredentials(
                    username: given.username, password: given.secret,
                    caller: .student(accountID: identity.accountID, clientAddress: context.clientAddress, presentsCredentials: true)
                )
            )
            return try GatewayJSON.response(
                GradebookViews.Account(stored), status: .created, headers: [.location: "/v1/me/gradebook-accounts/\(stored.id)"]
            )
        }
        group.delete(":accountId") { [canvasOAuth] _, context in
            let identity = try context.requireIdentity()
            guard let raw = context.parameters.get("accountId"), let id = Int64(raw) else { throw GradebookError.accountNotFound }
            if let stored = try await service.stored(id: id, of: identity.accountID) { await canvasOAuth.revoke(stored) }
            try await service.delete(id: id, accountID: identity.accountID)
            return Response(status: .noContent)
        }
    }
}
