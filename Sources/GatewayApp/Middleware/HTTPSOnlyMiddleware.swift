import Foundation
public import GatewayHTTP
public import GatewayCore
public import Hummingbird

/// With `--require-https`: plain-HTTP requests are refused (health probes excepted), unless a
/// trusted proxy reports `X-Forwarded-Proto: https`. Behind TLS termination in this process
/// every request is HTTPS already and this middleware is not installed.
struct HTTPSOnlyMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let trustProxyHeaders: Bool

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if path == "/healthz" || path == "/readyz" { return try await next(request, context) }
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased()
        guard trustProxyHeaders, forwarded == "https" else {
            throw Problem(
                type: "https-required", title: "HTTPS required", status: .forbidden,
                detail: "This server accepts requests over HTTPS only."
            )
        }
        return try await next(request, context)
    }
}

/// Replaces the socket address with the last `X-Forwarded-For` hop when proxy headers are
/// trusted: the address the proxy itself saw (it appends it, or sets the header to it). Earlier
/// hops are written by the client and would let it pick any address the throttle counts.
struct ForwardedForMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let header = request.headers[HTTPField.Name("X-Forwarded-For")!],
            let last = header.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            context.clientAddress = last
        }
        return try await next(request, context)
    }
}
