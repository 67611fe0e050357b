import Foundation
public import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// HTTP binding of campus sign-in (`/v1/auth/oidc/...`, the admin link). Mounted whether or not
/// a provider is configured, so the contract is one: without a provider, `start` and
/// `callback` are 404 and `/v1/auth/oidc` says `enabled: false`.
struct CampusSignInRoutes {
    let campus: CampusSignIn?
    /// Anonymous starts per client network (an IPv4 address, an IPv6 /64): each writes a row
    /// until its flow expires.
    let starts: RateLimit
    /// Anonymous callbacks per client network: each looks a state up (and, with a good one,
    /// reaches the provider).
    let callbacks: RateLimit

    /// The cookie that binds a flow to the browser that started it.
    static let cookie = "cg_signin"
    static let cookiePath = "/v1/auth/oidc"

    struct Info: Encodable {
        let enabled: Bool
        let displayName: String?
        let startPath: String?
        let passwordSignIn: String
    }

    struct Link: Decodable {
        let subject: String
    }

    struct LinkView: Encodable {
        let accountId: Int64
        let issuer: String
        let subject: String
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>, passwordSignIn: PasswordSignIn) {
        let campus = self.campus, starts = self.starts, callbacks = self.callbacks

        guarded.group(router, "v1/auth/oidc", access: .public)
            .get { _, _ in
                try GatewayJSON.response(Info(
                    enabled: campus != nil, displayName: campus?.settings.displayName, startPath: campus.map { _ in "/v1/auth/oidc/start" },
                    passwordSignIn: passwordSignIn.rawValue
                ), headers: [.cacheControl: "no-cache"])
            }

        guarded.group(router, "v1/auth/oidc/start", access: .public)
            .get { request, context in
                guard let campus else { throw AuthError.campusSignInOff }
                let raw = request.uri.queryParameters["returnTo"].map(String.init)
                guard let returnTo = ReturnPath.validate(raw) else {
                    throw Problem.badRequest("returnTo must be a path on this gateway, such as /schedule.", invalidFields: ["returnTo"])
                }
                if let wait = starts.take(context.clientAddress.map(ClientNetwork.key) ?? "unknown", now: campus.clock.now()) {
                    throw Problem.tooManyRequests(retryAfterSeconds: wait, detail: "Too many sign-ins started from this address. Try again later.")
                }
                let start = try await campus.start(returnTo: returnTo)
                var headers = HTTPFields()
                headers[.location] = start.location.absoluteString
                headers[.cacheControl] = "no-store"
                headers[.setCookie] = Self.setCookie(
                    start.browserBinding, maxAge: Int(campus.settings.flowLifetime), secure: campus.settings.secureCookies
                )
                return Response(status: .found, headers: headers)
            }

        guarded.group(router, "v1/auth/oidc/callback", access: .public)
            .get { request, context in
                guard let campus else { throw AuthError.campusSignInOff }
                if let wait = callbacks.take(context.clientAddress.map(ClientNetwork.key) ?? "unknown", now: campus.clock.now()) {
                    throw Problem.tooManyRequests(retryAfterSeconds: wait, detail: "Too many sign-in callbacks from this address. Try again later.")
                }
                let query = request.uri.queryParameters
                let finish = await campus.finish(CampusSignIn.Callback(
                    code: query["code"].map(String.init), state: query["state"].map(String.init), error: query["error"].map(String.init),
                    browserBinding: Self.cookieValue(request.headers[values: .cookie])
                ))
                var headers = HTTPFields()
                headers[.location] = finish.location
                headers[.cacheControl] = "no-store"
                // The flow is over either way: the browser forgets its binding.
                headers.append(HTTPField(name: .setCookie, value: Self.setCookie("", maxAge: 0, secure: campus.settings.secureCookies)))
                // The code in the fragment is this browser's alone: only a request that carries
                // this cookie (sent to the token route only) can redeem it.
                if let binding = finish.codeBinding {
                    headers.append(HTTPField(name: .setCookie, value: Self.codeBinding.set(
                        binding, maxAge: max(1, Int(campus.settings.signInCodeLifetime)), secure: campus.settings.secureCookies
                    )))
                }
                return Response(status: .found, headers: headers)
            }

        guarded.group(router, "v1/admin/accounts/:accountId/campus-identity", access: .role(.admin))
            .put { request, context in
                guard let campus else { throw AuthError.campusSignInOff }
                guard let id = context.parameters.get("accountId").flatMap(Int64.init) else { throw AuthError.accountNotFound(nil) }
                let body = try await GatewayJSON.decode(Link.self, from: request, context: context)
                let linked = try await campus.link(accountID: id, subject: body.subject)
                return try GatewayJSON.response(LinkView(accountId: linked.accountID, issuer: linked.issuer, subject: linked.subject))
            }
    }

    static let binding = BindingCookie(name: cookie, path: cookiePath)

    /// The cookie that binds a finished sign-in's one-time code to the browser it was handed
    /// to, sent only with requests to the token route that redeems it.
    public static let codeBinding = BindingCookie(name: "cg_signin_code", path: "/v1/auth/token")

    static func setCookie(_ value: String, maxAge: Int, secure: Bool) -> String {
        binding.set(value, maxAge: maxAge, secure: secure)
    }

    /// The binding cookie's value among the request's `Cookie` headers.
    static func cookieValue(_ headers: [String]) -> String? {
        binding.value(in: headers)
    }
}
