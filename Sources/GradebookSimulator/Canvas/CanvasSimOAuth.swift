import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The stand-in's OAuth2 grants, as Canvas's OAuth2 docs describe the flow: codes (single use,
/// bound to their `redirect_uri`), access tokens that expire, refresh tokens that mint new ones,
/// and `DELETE /login/oauth2/token` that revokes a token with its refresh token.
public struct CanvasSimOAuthGrants: Sendable {
    struct Access: Sendable { let student: Int64, expires: Date, refresh: String }

    var codes: [String: (student: Int64, redirect: String)] = [:]
    var access: [String: Access] = [:]
    var refresh: [String: Int64] = [:]
    /// Refresh tokens are refused from now on (a student revoked the app at Canvas).
    var refusingRefresh = false
    /// The next authorization is declined (`error=access_denied`).
    var declineNext = false
    /// Each token request's `grant_type`, in order.
    public internal(set) var tokenRequests: [String] = []
    public internal(set) var revocations = 0

    func student(accessToken: String, now: Date) -> Int64? {
        guard let grant = access[accessToken], grant.expires > now else { return nil }
        return grant.student
    }

    static func token(_ prefix: String) -> String {
        prefix + "~" + (0..<32).map { _ in String("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement()!) }.joined()
    }
}

/// The stand-in's developer key and the OAuth2 routes (`/login/oauth2/auth`, `/login/oauth2/token`).
struct CanvasSimOAuthRoutes {
    let state: CanvasSimState
    let key: CanvasSimulator.DeveloperKey
    /// The Canvas user an authorization signs in as (the stand-in has no login page).
    let student: Int64
    let accessLifetime: TimeInterval

    func register<Context: RequestContext>(on router: some RouterMethods<Context>) {
        router.get("login/oauth2/auth") { request, _ in authorize(request) }
        router.post("login/oauth2/token") { request, _ in try await token(request) }
        router.delete("login/oauth2/token") { request, _ in revoke(request) }
    }

    /// Approves at once as ``student`` (or declines once when told to), back to `redirect_uri`.
    func authorize(_ request: Request) -> Response {
        let query = request.uri.queryParameters
        guard query["client_id"].map(String.init) == key.id, query["response_type"] == "code",
              let redirect = query["redirect_uri"].map(String.init).flatMap({ $0.removingPercentEncoding }), var back = URLComponents(string: redirect)
        else { return CanvasSimResponses.json(["error": "invalid_request", "error_description": "unknown client or redirect"], status: .badRequest) }
        let stateValue = query["state"].map(String.init)?.removingPercentEncoding
        let declined = state.oauth { grants in
            defer { grants.declineNext = false }
            return grants.declineNext
        }
        var items = back.queryItems ?? []
        if declined {
            items.append(URLQueryItem(name: "error", value: "access_denied"))
        } else {
            let code = CanvasSimOAuthGrants.token("code")
            state.oauth { $0.codes[code] = (student, redirect) }
            items.append(URLQueryItem(name: "code", value: code))
        }
        if let stateValue { items.append(URLQueryItem(name: "state", value: stateValue)) }
        back.queryItems = items
        return Response(status: .found, headers: [.location: back.string ?? redirect])
    }

    /// Exchanges a code or a refresh token, with the client id and secret as form fields.
    func token(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 << 10)
        var form: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        let grant = form["grant_type"] ?? ""
        state.oauth { $0.tokenRequests.append(grant) }
        guard form["client_id"] == key.id, let secret = form["client_secret"], constantTimeEquals(secret, key.secret) else {
            return CanvasSimResponses.json(["error": "invalid_client"], status: .unauthorized)
        }
        let now = Date()
        switch grant {
        case "authorization_code":
            let issued = state.oauth { grants -> (access: String, refresh: String, student: Int64)? in
                guard let code = form["code"], let pending = grants.codes.removeValue(forKey: code), pending.redirect == form["redirect_uri"] else { return nil }
                let access = CanvasSimOAuthGrants.token("access"), refresh = CanvasSimOAuthGrants.token("refresh")
                grants.access[access] = .init(student: pending.student, expires: now.addingTimeInterval(accessLifetime), refresh: refresh)
                grants.refresh[refresh] = pending.student
                return (access, refresh, pending.student)
            }
            guard let issued, let user = state.data.students.first(where: { $0.id == issued.student }) else {
                return CanvasSimResponses.json(["error": "invalid_grant"], status: .badRequest)
            }
            return CanvasSimResponses.json([
                "access_token": issued.access, "token_type": "Bearer", "refresh_token": issued.refresh, "expires_in": Int(accessLifetime),
                "user": ["id": Int(user.id), "name": user.name] as [String: any Sendable],
            ])
        case "refresh_token":
            let renewed = state.oauth { grants -> (access: String, student: Int64)? in
                guard !grants.refusingRefresh, let refresh = form["refresh_token"], let student = grants.refresh[refresh] else { return nil }
                let access = CanvasSimOAuthGrants.token("access")
                grants.access[access] = .init(student: student, expires: now.addingTimeInterval(accessLifetime), refresh: refresh)
                return (access, student)
            }
            guard let renewed, let user = state.data.students.first(where: { $0.id == renewed.student }) else {
                return CanvasSimResponses.json(["error": "invalid_grant"], status: .badRequest)
            }
            return CanvasSimResponses.json([
                "access_token": renewed.access, "token_type": "Bearer", "expires_in": Int(accessLifetime),
                "user": ["id": Int(user.id), "name": user.name] as [String: any Sendable],
            ])
        default:
            return CanvasSimResponses.json(["error": "unsupported_grant_type"], status: .badRequest)
        }
    }

    /// Revokes the bearer's access token and its refresh token.
    func revoke(_ request: Request) -> Response {
        let header = request.headers[.authorization] ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        let revoked = state.oauth { grants -> Bool in
            guard let grant = grants.access.removeValue(forKey: token) else { return false }
            grants.refresh[grant.refresh] = nil
            grants.access = grants.access.filter { $0.value.refresh != grant.refresh }
            grants.revocations += 1
            return true
        }
        return revoked ? CanvasSimResponses.json([String: String]()) : CanvasSimResponses.json(["errors": [["message": "Invalid access token."]]], status: .unauthorized)
    }
}
