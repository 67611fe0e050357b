import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// Connecting a Canvas account with OAuth2 (``CanvasOAuthService``):
/// - `POST /v1/me/gradebook-accounts/oauth` `{"sourceId", "returnTo"?}` answers `{"authorizationUrl"}`;
/// - `GET /v1/gradebook/oauth/start?ticket=` (the browser, once) sets the binding cookie and
///   goes to Canvas;
/// - `GET /v1/gradebook/oauth/callback` (Canvas sends the browser back) keeps the grant pending
///   and lands on the web app (or `returnTo`) with `#canvas-connect=CODE`;
/// - `POST /v1/me/gradebook-accounts/oauth/complete` `{"code"}`: the owner's app stores the
///   account (201); any other account gets 404.
/// The two browser routes are anonymous: each is rate-limited per client network.
struct CanvasOAuthRoutes: Sendable {
    let service: CanvasOAuthService
    let starts = RateLimit(limit: 30, window: 60)
    let callbacks = RateLimit(limit: 60, window: 60)

    /// The browser's binding to its flow.
    static let cookie = BindingCookie(name: "cg_canvas_oauth", path: "/v1/gradebook/oauth")

    struct Begin: Decodable {
        let sourceId: Int64
        let returnTo: String?
    }

    struct Completion: Decodable {
        let code: String
    }

    /// A completed connection: the account as `/v1/me/gradebook-accounts` lists it, and the
    /// Canvas user it reads, for its owner to recognise.
    struct Connected: Encodable {
        let account: GradebookViews.Account
        let canvasUserId: String
        let canvasUserName: String?
    }

    struct Authorization: Encodable {
        let authorizationUrl: String
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service, starts = self.starts, callbacks = self.callbacks
        guarded.group(router, "v1/me/gradebook-accounts/oauth", access: .authenticated)
            .post { request, context in
                let identity = try context.requireIdentity()
                let body = try await GatewayJSON.decode(Begin.self, from: request, context: context)
                let url = try await service.begin(owner: identity.accountID, sourceID: body.sourceId, returnTo: body.returnTo)
                return try GatewayJSON.response(Authorization(authorizationUrl: url.absoluteString), headers: [.cacheControl: "no-store"])
            }

        guarded.group(router, "v1/me/gradebook-accounts/oauth/complete", access: .authenticated)
            .post { request, context in
                let identity = try context.requireIdentity()
                let body = try await GatewayJSON.decode(Completion.self, from: request, context: context)
                let done = try await service.complete(code: body.code, accountID: identity.accountID)
                return try GatewayJSON.response(
                    Connected(account: GradebookViews.Account(done.account), canvasUserId: done.canvasUserID, canvasUserName: done.canvasUserName),
                    status: .created, headers: [.location: "/v1/me/gradebook-accounts/\(done.account.id)", .cacheControl: "no-store"]
                )
            }

        guarded.group(router, "v1/gradebook/oauth/start", access: .public)
            .get { request, context in
                if let wait = starts.take(context.clientAddress.map(ClientNetwork.key) ?? "unknown", now: service.clock.now()) {
                    throw Problem.tooManyRequests(retryAfterSeconds: wait, detail: "Too many Canvas connections started from this address. Try again later.")
                }
                guard let ticket = request.uri.queryParameters["ticket"].map(String.init) else {
                    throw GradebookError.invalid(field: "ticket", message: "Open the link the app gave you.")
                }
                let start = try await service.start(ticket: ticket)
                var headers = HTTPFields()
                headers[.location] = start.location.absoluteString
                headers[.cacheControl] = "no-store"
                headers[.setCookie] = Self.cookie.set(start.binding, maxAge: Int(CanvasOAuthService.flowLifetime), secure: service.secureCookies)
                return Response(status: .found, headers: headers)
            }

        guarded.group(router, "v1/gradebook/oauth/callback", access: .public)
            .get { request, context in
                if let wait = callbacks.take(context.clientAddress.map(ClientNetwork.key) ?? "unknown", now: service.clock.now()) {
                    throw Problem.tooManyRequests(retryAfterSeconds: wait, detail: "Too many Canvas callbacks from this address. Try again later.")
                }
                let query = request.uri.queryParameters
                let location = await service.finish(CanvasOAuthService.Callback(
                    code: query["code"].map(String.init), state: query["state"].map(String.init), error: query["error"].map(String.init),
                    binding: Self.cookie.value(in: request.headers[values: .cookie])
                ))
                var headers = HTTPFields()
                headers[.location] = location.absoluteString
                headers[.cacheControl] = "no-store"
                // The flow is over either way: the browser forgets its binding.
                headers[.setCookie] = Self.cookie.cleared(secure: service.secureCookies)
                return Response(status: .seeOther, headers: headers)
            }
    }
}
