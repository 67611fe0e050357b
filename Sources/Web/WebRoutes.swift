import NIOFoundationEssentialsCompat
import Foundation
public import GatewayHTTP
public import Hummingbird
import HTTPTypes
import NIOCore

/// Serves the student web app at `/`, the operator console at `/admin/`, the Web Push service
/// worker at `/sw.js` and their scripts and styles at `/assets/{file}`.
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
        // The service worker lives at the root so its scope covers the whole app.
        guarded.group(router, "sw.js", access: .public).get { request, _ in
            try Self.serve(assets, "sw.js", request)
        }
        guarded.group(router, "assets", access: .public).get(":file") { request, context in
            let file = context.parameters.get("file") ?? ""
            // One path segment of plain characters; anything else names no file.
            guard !file.isEmpty, file.count <= 100, !file.hasPrefix("."),
                file.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
            else { throw Self.notFound() }
            return try Self.serve(assets, "assets/\(file)", request)
        }
    }

    static func notFound() -> Problem {
        Problem(
            type: "not-found", title: "Not found", status: .notFound,
            detail: "No page or file lives at this address.", headers: securityHeaders
        )
    }

    /// Answers the file, or 304 when `If-None-Match` names its ETag.
    static func serve(_ assets: WebAssets, _ path: String, _ request: Request) throws -> Response {
        guard let asset = assets[path] else {
            if assets.root == nil {
                throw Problem(
                    type: "not-found", title: "Not found", status: .notFound,
                    detail: "The web app is not installed with this build.", headers: securityHeaders
                )
            }
            throw notFound()
        }
        var headers = securityHeaders
        headers[.eTag] = asset.etag
        // Cached copies are checked with the ETag before each use, so a deploy shows at once.
        headers[.cacheControl] = "no-cache"
        if let condition = request.headers[.ifNoneMatch], WebAssets.matches(ifNoneMatch: condition, etag: asset.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        headers[.contentLength] = String(asset.data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: asset.data)))
    }
}
