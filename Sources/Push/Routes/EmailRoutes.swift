import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// The email channel's routes. The owner confirms with the mailed code
/// (`POST /v1/me/devices/{id}/confirm`) or asks for another mail
/// (`POST /v1/me/devices/{id}/resend-confirmation`); the mailed links work without an
/// account: `/v1/email/confirm?token=` and the one-click `/v1/email/unsubscribe?token=`
/// (RFC 8058). A `GET` of either only shows a page with a button (link scanners and
/// prefetchers change nothing); the `POST` acts. The access log never writes query strings,
/// and the pages send no referrer, so the token stays out of logs and other sites.
public struct EmailRoutes: Sendable {
    let devices: DeviceService

    public init(devices: DeviceService) {
        self.devices = devices
    }

    struct ConfirmBody: Decodable {
        let code: String
    }

    struct Confirmed: Encodable {
        let confirmed: Bool
        let deviceId: Int64
    }

    struct Unsubscribed: Encodable {
        let unsubscribed: Bool
        let category: String
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let emails = devices.emails
        let mine = guarded.group(router, "v1/me/devices", access: .authenticated)
        mine.post(":deviceId/confirm") { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(ConfirmBody.self, from: request, context: context)
            guard body.code.utf8.count <= 32 else { throw PushError.invalid(field: "code", message: "code is the 6-digit code from the mail.") }
            let device = try await emails.confirm(deviceID: try PushRoutes.deviceID(context), accountID: identity.accountID, code: body.code)
            return try GatewayJSON.response(PushViews.Device(device))
        }
        mine.post(":deviceId/resend-confirmation") { _, context in
            let identity = try context.requireIdentity()
            try await emails.resend(deviceID: try PushRoutes.deviceID(context), accountID: identity.accountID, clientAddress: context.clientAddress)
            return try GatewayJSON.response(["queued": true], status: .accepted)
        }

        let links = guarded.group(router, "v1/email", access: .public)
        Self.link(
            "confirm", on: links,
            ask: ("Confirm your address", "Press the button to receive Campus Gateway notifications at this address.", "Confirm"),
            done: ("Address confirmed", "Campus Gateway notifications will reach this address.")
        ) { token in
            let device = try await emails.confirm(token: token)
            return try GatewayJSON.response(Confirmed(confirmed: true, deviceId: device.id), headers: [.cacheControl: "no-store"])
        }
        Self.link(
            "unsubscribe", on: links,
            ask: ("Stop these emails", "Press the button to stop the alert or the kind of notification this mail was about.", "Unsubscribe"),
            done: ("Unsubscribed", "That alert, or that kind of notification, no longer comes to this address.")
        ) { token in
            let target = try await emails.unsubscribe(token: token)
            return try GatewayJSON.response(Unsubscribed(unsubscribed: true, category: target.category), headers: [.cacheControl: "no-store"])
        }
    }

    /// A mailed link at `/v1/email/{path}?token=...`: `GET` only shows a page with a button
    /// (mail scanners follow links), `POST` acts, answering a page to a browser and JSON to
    /// anyone else (RFC 8058's one-click `POST` included).
    static func link(
        _ path: String, on links: GuardedGroup, ask: (title: String, text: String, button: String),
        done: (title: String, text: String), act: @escaping @Sendable (String) async throws -> Response
    ) {
        _ = links.get(path) { request, _ in
            let token = try Self.token(request)
            return Self.page(title: ask.title, text: ask.text, button: ask.button, action: "/v1/email/\(path)?token=\(token)")
        }
        _ = links.post(path) { request, _ in
            let answer = try await act(try Self.token(request))
            return Self.wantsHTML(request) ? Self.page(title: done.title, text: done.text, button: nil, action: nil) : answer
        }
    }

    /// The `token` query parameter, shaped as the gateway makes them (else 404, as unknown).
    static func token(_ request: Request) throws -> String {
        guard let token = request.uri.queryParameters.get("token"), EmailConfirmation.isTokenShaped(token) else { throw PushError.emailLinkInvalid }
        return token
    }

    static func wantsHTML(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("text/html") == true
    }

    /// A tiny page with no script, no style and no referrer; a form posting to `action` when
    /// `button` is given. Every inserted string is fixed text or a token checked to be
    /// base64url, so nothing needs escaping.
    static func page(title: String, text: String, button: String?, action: String?) -> Response {
        var html = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(title)</title></head><body><h1>\(title)</h1><p>\(text)</p>"
        if let button, let action {
            html += "<form method=\"post\" action=\"\(action)\"><input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">"
                + "<button type=\"submit\">\(button)</button></form>"
        }
        html += "</body></html>"
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
