import Foundation
import GatewayHTTP
import HTTPTypes
import Hummingbird
import NIOCore

/// Cross-origin requests from front ends on other origins (a Vite dev server, GitHub Pages, the
/// campus portal), allowed for the exact origins an operator lists (`GATEWAY_CORS_ORIGINS`) and
/// answered by Hummingbird's `CORSMiddleware`: preflights get 204 with the methods, the headers a
/// front end sends (`authorization`, `content-type`, `if-match`, `if-none-match`) and a max age;
/// every answer to an allowed origin carries `Access-Control-Allow-Origin` with that origin and
/// `Vary: Origin`, and exposes `ETag`, `Link`, `Location` and `Retry-After`. `*` is never sent,
/// and credentials (cookies) are not allowed: front ends send bearer tokens, so no cookie-signed
/// route can be driven from another origin.
///
/// The compatibility protocols (SDSU, the gradebook's, QuickHAC) are for native clients and get
/// no CORS headers: their paths (`nativePrefixes`) pass through untouched.
///
/// It is the outermost middleware: a preflight is answered before the front door (it carries no
/// credentials and no body), and the front door has turned every error into a response before
/// the headers are added.
struct CrossOriginRequests: RouterMiddleware {
    typealias Context = GatewayContext
    let cors: CORSMiddleware<GatewayContext>
    let origins: Set<String>
    let nativePrefixes: [String]

    /// How long a browser may keep a preflight's answer: ten minutes.
    static let maxAge: TimeAmount = .seconds(600)
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]
    static let headers: [HTTPField.Name] = [.authorization, .contentType, .ifMatch, .ifNoneMatch, .accept]
    static let exposed = ["ETag", "Link", "Location", "Retry-After"]

    init(origins: [String], nativePrefixes: [String]) {
        // Only listed origins reach the middleware, which answers with the request's own.
        cors = CORSMiddleware(
            allowOrigin: .originBased, allowHeaders: Self.headers, allowMethods: Self.methods, allowCredentials: false,
            exposedHeaders: Self.exposed, maxAge: Self.maxAge
        )
        self.origins = Set(origins)
        self.nativePrefixes = nativePrefixes
    }

    func handle(_ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if nativePrefixes.contains(where: { path.hasPrefix($0) }) { return try await next(request, context) }
        if let origin = request.headers[.origin], origins.contains(origin) {
            var response = try await cors.handle(request, context: context, next: next)
            // The middleware lists the exposed headers on preflights only; the browser reads
            // them from each actual answer.
            if request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposed.joined(separator: ", ") }
            return response
        }
        // Another origin, or none: no CORS headers (a browser refuses the answer to a page of
        // another origin), but shared caches keep answers apart by origin.
        var response = try await next(request, context)
        if !response.headers[values: .vary].contains(where: { $0.lowercased().contains("origin") }) {
            response.headers[values: .vary].append("Origin")
        }
        return response
    }

    /// An origin as a browser sends it (`https://app.campus.edu`, `http://localhost:5173`):
    /// scheme and host lowercased, the port only when it is not the scheme's default; nil for
    /// anything else (a path, credentials, `*`, `null`).
    static func origin(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != "*", trimmed != "null", let url = URL(string: trimmed),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil,
              url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port, port != defaultPort else { return "\(scheme)://\(shownHost)" }
        return "\(scheme)://\(shownHost):\(port)"
    }
}

extension GatewayConfiguration {
    /// An origin for ``corsOrigins`` in the form browsers send, or nil when `text` is none.
    public static func corsOrigin(_ text: String) -> String? { CrossOriginRequests.origin(text) }
}
