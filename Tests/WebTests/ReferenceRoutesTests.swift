import Foundation
import GatewayHTTP
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing
import Web

/// The API reference at `/docs` and the problem type pages, the Web module alone on a router:
/// the reference loads nothing from another origin and has its own CSP, and every problem type
/// the code can answer with has a page (and every page a type the code still has).
@Suite("API reference and problem pages")
struct ReferenceRoutesTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func catalog() throws -> ProblemCatalog {
        try ProblemCatalog(json: Data(contentsOf: repository.appendingPathComponent("Sources/Web/Reference/problems.json")))
    }

    /// The values of `src` and `href` attributes in an HTML text.
    static func links(in html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\b(?:src|href)\s*=\s*"([^"]*)""#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap { match in
            Range(match.range(at: 1), in: html).map { String(html[$0]) }
        }
    }

    @Test func theReferenceLoadsOnlyFilesOfThisGatewayUnderItsOwnPolicy() async throws {
        try await ModuleRouter(WebModule()).withRouter { client in
            let page = try await client.json(.get, "/docs")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let csp = try #require(page.headers[.contentSecurityPolicy])
            for directive in ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"] {
                #expect(csp.contains(directive), "CSP lacks \(directive)")
            }
            #expect(!csp.contains("unsafe-eval") && !csp.contains("script-src 'self' 'unsafe-inline'"))
            #expect(csp != WebRoutes.contentSecurityPolicy, "the reference has a policy of its own")
            #expect(!page.body.contains("<script>"), "no inline script")

            let links = Self.links(in: page.body)
            #expect(links.contains("/docs/swagger-ui/swagger-ui-bundle.js"))
            for link in links {
                #expect(link.hasPrefix("/") && !link.hasPrefix("//"), "\(link) points outside the gateway")
                guard link.hasPrefix("/docs/") else { continue }
                let file = try await client.json(.get, link)
                #expect(file.status == .ok, "\(link)")
                #expect(file.headers[.contentSecurityPolicy] == csp, "\(link)")
            }
            // The renderer's own files name no other origin to load from: no stylesheet import or
            // font of another host, and the script is told where the spec is and that no validator is.
            let css = try await client.json(.get, "/docs/swagger-ui/swagger-ui.css")
            #expect(!css.body.contains("url(http") && !css.body.contains("@import"))
            let setup = try await client.json(.get, "/docs/reference.js")
            #expect(setup.body.contains(#"url: "/openapi.yaml""#) && setup.body.contains("validatorUrl: null"))
            let license = try await client.json(.get, "/docs/swagger-ui/LICENSE")
            #expect(license.status == .ok && license.body.contains("Apache License"))
            for outside in ["/docs/../Package.swift", "/docs/swagger-ui/.hidden", "/docs/swagger-ui/../../Package.swift"] {
                let reply = try await client.json(.get, outside)
                #expect(reply.status == .notFound, "\(outside)")
            }
        }
    }

    @Test func everyProblemTypeHasAPageAndTheListNamesThemAll() async throws {
        let catalog = try Self.catalog()
        #expect(catalog.entries.count > 50)
        try await ModuleRouter(WebModule()).withRouter { client in
            let list = try await client.json(.get, "/problems")
            #expect(list.status == .ok)
            for entry in catalog.entries {
                #expect(list.body.contains(#"href="/problems/\#(entry.type)""#), "\(entry.type) is not listed")
                let page = try await client.json(.get, "/problems/\(entry.type)")
                #expect(page.status == .ok, "\(entry.type)")
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.body.contains("<code>/problems/\(entry.type)</code>"))
                #expect(page.body.contains(String(entry.status)))
                #expect(!entry.meaning.isEmpty && !entry.action.isEmpty, "\(entry.type)")
            }
            let unknown = try await client.json(.get, "/problems/no-such-problem")
            #expect(unknown.status == .notFound)
            #expect(unknown.body.contains("/problems/not-found"))
            let markup = try await client.json(.get, "/problems/%3Cscript%3E")
            #expect(markup.status == .notFound && !markup.body.contains("<script>"))
        }
    }

    /// The types the code can answer with, read from the sources: `Problem(type: "x"`, the
    /// `conflict("x"` and gradebook `upstream("x"` factories, and `problem.type = "x"`.
    static func typesInSources() throws -> Set<String> {
        let sources = repository.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"(?:\btype:\s*|\.conflict\(\s*|\bupstream\(\s*|\.type\s*=\s*)"([a-z][a-z0-9-]*)""#)
        var types = Set<String>()
        let walker = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                // Only problem types: a constructor of a Problem on the same line.
                let line = text.lineRange(for: range)
                let context = text[line]
                if context.contains("Problem(") || context.contains(".conflict(") || context.contains("upstream(")
                    || context.contains("problem.type") || context.contains("title:") {
                    types.insert(String(text[range]))
                }
            }
        }
        return types
    }

    @Test func theCatalogDescribesExactlyTheTypesTheCodeHas() throws {
        let described = Set(try Self.catalog().entries.map(\.type))
        let produced = try Self.typesInSources()
        #expect(produced.count > 50, "the scan finds the types (\(produced.count))")
        #expect(produced.subtracting(described).isEmpty, "not described in problems.json: \(produced.subtracting(described).sorted())")
        #expect(described.subtracting(produced).isEmpty, "described but never answered: \(described.subtracting(produced).sorted())")
    }

    @Test func theContractsProblemLinksResolve() async throws {
        let spec = try String(contentsOf: Self.repository.appendingPathComponent("openapi/openapi.yaml"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"/problems/([a-z][a-z0-9-]*)"#)
        let named = Set(pattern.matches(in: spec, range: NSRange(spec.startIndex..., in: spec)).compactMap { match in
            Range(match.range(at: 1), in: spec).map { String(spec[$0]) }
        })
        #expect(!named.isEmpty)
        try await ModuleRouter(WebModule()).withRouter { client in
            for type in named.sorted() {
                let page = try await client.json(.get, "/problems/\(type)")
                #expect(page.status == .ok, "/problems/\(type) in openapi.yaml")
            }
        }
    }
}
