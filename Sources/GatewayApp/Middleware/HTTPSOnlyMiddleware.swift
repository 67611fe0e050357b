import Foundation
import GatewayHTTP
import GatewayCore
import Hummingbird

/// With `--require-https`: plain-HTTP requests are refused, unless a trusted proxy (its socket
/// address in `trusted`) reports `X-Forwarded-Proto: https`. Only the anonymous health probes
/// (`/healthz`, `/readyz` without `deep`) pass over plain HTTP; `/readyz?deep=1` carries an
/// admin's token and does not. Behind TLS termination in this process every request is HTTPS
/// already and this middleware is not installed.
struct HTTPSOnlyMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let trusted: [AddressRange]

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        let probe = path == "/healthz" || (path == "/readyz" && request.uri.queryParameters["deep"] == nil)
        if probe { return try await next(request, context) }
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased()
        guard ForwardedForMiddleware.isTrusted(context.peerAddress, in: trusted), forwarded == "https" else {
            throw Problem(
                type: "https-required", title: "HTTPS required", status: .forbidden,
                detail: "This server accepts requests over HTTPS only."
            )
        }
        return try await next(request, context)
    }
}

/// Replaces the socket address with the last `X-Forwarded-For` hop when the socket peer is a
/// trusted proxy: the address the proxy itself saw (it appends it, or sets the header to it).
/// Earlier hops are written by the client and would let it pick any address the throttle
/// counts; and a peer that is not a trusted proxy writes the whole header itself.
struct ForwardedForMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let trusted: [AddressRange]

    static func isTrusted(_ peer: String?, in trusted: [AddressRange]) -> Bool {
        guard let peer else { return false }
        return trusted.contains { $0.contains(peer) }
    }

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if Self.isTrusted(context.peerAddress, in: trusted), let header = request.headers[HTTPField.Name("X-Forwarded-For")!],
            let last = header.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            context.clientAddress = last
        }
        return try await next(request, context)
    }
}
