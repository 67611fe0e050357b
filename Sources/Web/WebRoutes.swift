import NIOFoundationEssentialsCompat
import Foundation
public import GatewayHTTP
public import Hummingbird
import HTTPTypes
import NIOCore

/// Serves the student web app at `/`, the operator console at `/admin/`, a schedule shared by
/// link at `/shared/{token}`, the Web Push service worker at `/sw.js` and their scripts and
/// styles at `/assets/{file}`.
///
/// Only files that exist in ``WebAssets`` are answered (a lookup in memory, so `..` or an
/// encoded slash names nothing); every page and file carries a strict Content-Security-Policy
/// (no inline script or style, nothing from another origin, no framing), `nosniff` and
/// `Referrer-Policy: no-referrer`, and an ETag that `If-None-Match` answers with 304.
/// Everything here is public: the pages hold no data; they call the `/v1` API with the
/// signed-in user's token, and the API decides what each caller may see.
public struct WebRoutes: Sendable {
    public let assets: WebAssets

    public init(assets: WebAssets) {
        self.assets = assets
    }

    /// Shared schedules' pages live at `/shared/{token}`: the rest of the path is a secret (the
    /// composition root keeps it out of access logs).
    public static let sharedPagePrefix = "/shared/"

    /// The Content-Security-Policy of every page and file.
    public static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
        "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'", "object-src 'none'",
        "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'",
    ].joined(separator: "; ")

    /// The headers every answer of these routes carries (304s and 404s included).
    public static var securityHeaders: HTTPFields {
        var fields = HTTPFields()
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        fields[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        fields[HTTPField.Name("Permissions-Policy")!] = "camera=(), microphone=(), geolocation=()"
        return fields
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let assets = self.assets
        guarded.group(router, "", access: .public).get { request, _ in
            try Self.serve(assets, "index.html", request)
        }
        // `/admin` and `/admin/` are one route (the router ignores a trailing slash).
        guarded.group(router, "admin", access: .public).get { request, _ in
            try Self.serve(assets, "admin.html", request)
        }
        // The same page for every token: its script reads the token from the address and asks
        // the API, which decides (a revoked or unknown link shows the API's 404).
        guarded.group(router, "shared", access: .public).get(":token") { request, _ in
            try Self.serve(assets, "shared.html", request)
        }
        // The service worker lives at the root so its scope covers the whole app.
        guarded.group(router, "sw.js", access: .public).get { request, _ in
            try Self.serve(assets, "sw.js", request)
        }
        guarded.group(router, "assets", access: .public).get(":file") { request, context in
            try Self.serve(assets, "assets/\(Self.fileName(context.parameters.get("file")))", request)
        }
    }

    /// A file name from one path segment of plain characters; anything else names no file.
    static func fileName(_ segment: String?, headers: HTTPFields = securityHeaders) throws -> String {
        guard let file = segment, !file.isEmpty, file.count <= 100, !file.hasPrefix("."),
            file.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else { throw notFound(headers: headers) }
        return file
    }

    static func notFound(headers: HTTPFields = securityHeaders) -> Problem {
        Problem(
            type: "not-found", title: "Not found", status: .notFound,
            detail: "No page or file lives at this address.", headers: headers
        )
    }

    /// Answers the file, or 304 when `If-None-Match` names its ETag.
    static func serve(_ assets: WebAssets, _ path: String, _ request: Request, headers securityHeaders: HTTPFields = securityHeaders) throws -> Response {
        guard let asset = assets[path] else {
            if assets.root == nil {
                throw Problem(
                    type: "not-found", title: "Not found", status: .notFound,
                    detail: "These pages are not installed with this build.", headers: securityHeaders
                )
            }
            throw notFound(headers: securityHeaders)
        }
        return respond(data: asset.data, contentType: asset.contentType, etag: asset.etag, request, headers: securityHeaders)
    }

    /// An HTML page rendered in memory, with its ETag.
    static func page(_ html: Data, _ request: Request, headers: HTTPFields) -> Response {
        respond(data: html, contentType: "text/html; charset=utf-8", etag: WebAssets.etag(of: html), request, headers: headers)
    }

    private static func respond(data: Data, contentType: String, etag: String, _ request: Request, headers securityHeaders: HTTPFields) -> Response {
        var headers = securityHeaders
        headers[.eTag] = etag
        // Cached copies are checked with the ETag before each use, so a deploy shows at once.
        headers[.cacheControl] = "no-cache"
        if let condition = request.headers[.ifNoneMatch], WebAssets.matches(ifNoneMatch: condition, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
