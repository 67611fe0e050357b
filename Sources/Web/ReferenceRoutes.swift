import NIOFoundationEssentialsCompat
import Foundation
public import GatewayHTTP
public import Hummingbird
import HTTPTypes
import NIOCore

/// The browsable API reference at `/docs` (the vendored Swagger UI rendering `/openapi.yaml`)
/// and the problem type pages at `/problems` and `/problems/{type}`.
///
/// Everything is served from memory with its own Content-Security-Policy: scripts, styles and
/// images from this origin only (Swagger UI sets element styles from script, hence
/// `style-src 'unsafe-inline'` here and not on the student app), requests to this origin only,
/// no framing, no forms.
public struct ReferenceRoutes: Sendable {
    public let assets: WebAssets
    let problems: ProblemPages?

    /// The reference files (`index.html`, `reference.js`, `swagger-ui/...`, `problems.json`).
    /// Without a readable `problems.json` the problem pages answer 404.
    public init(assets: WebAssets) {
        self.assets = assets
        problems = assets["problems.json"].flatMap { try? ProblemCatalog(json: $0.data) }.map(ProblemPages.init)
    }

    /// The reference's Content-Security-Policy.
    public static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
        "font-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'",
    ].joined(separator: "; ")

    static var securityHeaders: HTTPFields {
        var fields = WebRoutes.securityHeaders
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        return fields
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let assets = self.assets, problems = self.problems
        let headers = Self.securityHeaders
        let docs = guarded.group(router, "docs", access: .public)
        docs.get { request, _ in
            try WebRoutes.serve(assets, "index.html", request, headers: headers)
        }
        docs.get(":file") { request, context in
            try WebRoutes.serve(assets, WebRoutes.fileName(context.parameters.get("file"), headers: headers), request, headers: headers)
        }
        docs.get("swagger-ui/:file") { request, context in
            let file = try WebRoutes.fileName(context.parameters.get("file"), headers: headers)
            return try WebRoutes.serve(assets, "swagger-ui/\(file)", request, headers: headers)
        }

        let problemPages = guarded.group(router, "problems", access: .public)
        problemPages.get { request, _ in
            guard let problems else { throw WebRoutes.notFound(headers: headers) }
            return WebRoutes.page(problems.index, request, headers: headers)
        }
        problemPages.get(":type") { request, context in
            let type = context.parameters.get("type") ?? ""
            guard ProblemCatalog.isTypeName(type), let page = problems?.pages[type] else {
                throw Problem(
                    type: "not-found", title: "Not found", status: .notFound,
                    detail: "No problem type is called '\(type.prefix(64))'; /problems lists them all.", headers: headers
                )
            }
            return WebRoutes.page(page, request, headers: headers)
        }
    }
}

extension ReferenceRoutes: ModuleRoutes {}
