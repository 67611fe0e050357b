import Foundation
import GatewayHTTP
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing
import Web

/// The web app and console files, the Web module alone on a router: content types, ETags and
/// 304s, the security headers on every answer, 404 for anything that is not a shipped file.
/// (That no API route is shadowed is the application's: GatewayTests' `WebMountTests`.)
@Suite("Web pages and their files")
struct WebRoutesTests {
    static let publicFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Web/Public")

    func expectSecurityHeaders(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let csp = reply.headers[.contentSecurityPolicy] ?? ""
        for directive in ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"] {
            #expect(csp.contains(directive), "\(what): CSP lacks \(directive)", sourceLocation: sourceLocation)
        }
        #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"), "\(what)", sourceLocation: sourceLocation)
        #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(what)", sourceLocation: sourceLocation)
        #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(what)", sourceLocation: sourceLocation)
    }

    @Test func pagesAndFilesAnswerWithTheirContentTypesAndHeaders() async throws {
        try await ModuleRouter(WebModule()).withRouter { client in
            let cases: [(String, String, String)] = [
                ("/", "text/html; charset=utf-8", "<script type=\"module\" src=\"/assets/app.js\">"),
                ("/admin/", "text/html; charset=utf-8", "<script type=\"module\" src=\"/assets/admin.js\">"),
                ("/admin", "text/html; charset=utf-8", "Operator console"),
                ("/sw.js", "text/javascript; charset=utf-8", "addEventListener('push'"),
                ("/assets/app.js", "text/javascript; charset=utf-8", "import"),
                ("/assets/app.css", "text/css; charset=utf-8", ".week-grid"),
                ("/assets/icon.svg", "image/svg+xml", "<svg"),
            ]
            for (path, type, snippet) in cases {
                let reply = try await client.json(.get, path)
                #expect(reply.status == .ok, "\(path)")
                #expect(reply.headers[.contentType] == type, "\(path)")
                #expect(reply.body.contains(snippet), "\(path)")
                #expect(reply.headers[.eTag]?.hasPrefix("\"") == true, "\(path)")
                #expect(reply.headers[.cacheControl] == "no-cache", "\(path)")
                expectSecurityHeaders(reply, path)
            }
        }
    }

    @Test func aMatchingIfNoneMatchAnswers304() async throws {
        try await ModuleRouter(WebModule()).withRouter { client in
            let first = try await client.json(.get, "/assets/app.js")
            let etag = try #require(first.headers[.eTag])
            for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let again = try await client.json(.get, "/assets/app.js", headers: [.ifNoneMatch: condition])
                #expect(again.status == .notModified, "\(condition)")
                #expect(again.body.isEmpty)
                #expect(again.headers[.eTag] == etag)
                expectSecurityHeaders(again, "304")
            }
            let changed = try await client.json(.get, "/assets/app.js", headers: [.ifNoneMatch: "\"stale\""])
            #expect(changed.status == .ok)
            #expect(changed.body == first.body)
            // Different files, different tags.
            let css = try await client.json(.get, "/assets/app.css")
            #expect(css.headers[.eTag] != etag)
        }
    }

    @Test func anythingButAShippedFileIsA404() async throws {
        try await ModuleRouter(WebModule()).withRouter { client in
            for path in [
                "/assets/nope.js", "/assets/..%2Findex.html", "/assets/%2e%2e%2fPackage.swift", "/assets/.hidden",
                "/assets/../index.html", "/assets/../../Package.swift", "/assets/", "/assets/app.js/x", "/index.html",
                "/admin.html", "/assets/admin%2ejs%00", "/WebAssets.swift",
            ] {
                let reply = try await client.json(.get, path)
                #expect(reply.status == .notFound, "\(path): \(reply.status)")
                #expect(!reply.body.contains("import "), "\(path) leaked a file")
                #expect(reply.headers[.contentType] == "application/problem+json", "\(path)")
            }
            // Names that reach the file route are refused there, with the pages' headers.
            for path in ["/assets/nope.js", "/assets/.hidden", "/assets/..%2Findex.html", "/assets/%2e%2e%2fPackage.swift"] {
                let reply = try await client.json(.get, path)
                #expect(reply.status == .notFound, "\(path)")
                expectSecurityHeaders(reply, path)
            }
        }
    }

    /// The pages keep to the CSP and insert API strings as text: no inline script or style, no
    /// inline handlers, no HTML parsing of strings in any script, every referenced file shipped.
    @Test func theFilesKeepToTheContentSecurityPolicy() throws {
        let assets = try WebAssets.load(from: Self.publicFolder)
        #expect(assets["index.html"] != nil && assets["admin.html"] != nil && assets["sw.js"] != nil)
        for (path, asset) in assets.files {
            let text = String(decoding: asset.data, as: UTF8.self)
            if path.hasSuffix(".html") {
                #expect(text.firstMatch(of: /<script(?![^>]*\bsrc=)[^>]*>/) == nil, "\(path) has an inline script")
                #expect(text.firstMatch(of: /\sstyle\s*=/) == nil, "\(path) has a style attribute")
                #expect(text.firstMatch(of: /<style/) == nil, "\(path) has a style element")
                #expect(text.firstMatch(of: /\son[a-z]+\s*=/) == nil, "\(path) has an inline handler")
                #expect(Self.withoutNamespaces(text).firstMatch(of: /https?:\/\/[A-Za-z0-9]/) == nil, "\(path) loads something from elsewhere")
                for match in text.matches(of: /(?:src|href)="\/(assets\/[^"]+)"/) {
                    #expect(assets[String(match.1)] != nil, "\(path) references \(match.1), which is not shipped")
                }
            }
            if path.hasSuffix(".js") {
                for banned in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('style'"] {
                    #expect(!text.contains(banned), "\(path) uses \(banned)")
                }
                for match in text.matches(of: /from '\.\/([A-Za-z0-9_-]+\.js)'/) {
                    #expect(assets["assets/\(match.1)"] != nil, "\(path) imports \(match.1), which is not shipped")
                }
                #expect(Self.withoutNamespaces(text).firstMatch(of: /https?:\/\/[A-Za-z0-9]/) == nil, "\(path) reaches outside the gateway")
            }
        }
    }

    /// `text` without the SVG namespace name, which `createElementNS` takes: a name that is
    /// never fetched, so no address the content security policy would have to allow.
    static func withoutNamespaces(_ text: String) -> String {
        text.replacing("'http://www.w3.org/2000/svg'", with: "''")
    }

    @Test func entityTagComparison() {
        #expect(WebAssets.matches(ifNoneMatch: "\"a\"", etag: "\"a\""))
        #expect(WebAssets.matches(ifNoneMatch: " W/\"a\" ", etag: "\"a\""))
        #expect(WebAssets.matches(ifNoneMatch: "\"b\",\"a\"", etag: "\"a\""))
        #expect(WebAssets.matches(ifNoneMatch: "*", etag: "\"a\""))
        #expect(!WebAssets.matches(ifNoneMatch: "\"b\"", etag: "\"a\""))
        #expect(!WebAssets.matches(ifNoneMatch: "a", etag: "\"a\""))
        #expect(WebAssets.contentType(of: "x.mjs") == "text/javascript; charset=utf-8")
        #expect(WebAssets.contentType(of: "x.unknown") == "application/octet-stream")
    }
}
