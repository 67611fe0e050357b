import Contracts
import TestSupport
import GatewayHTTP
import Hummingbird
import HTTPTypes
import GatewayApp
import Foundation
import Testing

/// The router and `openapi/openapi.yaml` must describe the same routes.
@Suite("openapi.yaml matches the router")
struct OpenAPIContractTests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]

    /// Reads `paths:` from the spec: path keys at two spaces, method keys at four.
    static func specRoutes() throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("openapi/openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        var routes = Set<String>()
        var inPaths = false
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            if inPaths, let first = line.first, first != " ", first != "#" { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path = current {
                let key = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ":", with: "")
                if methods.contains(key) { routes.insert("\(key.uppercased()) \(normalize(path))") }
            }
        }
        return routes
    }

    /// `/v1/jobs/:id` and `/v1/jobs/{id}` both become `/v1/jobs/{id}`; a trailing slash goes
    /// (the router ignores it: `/admin/` is `/admin`), and the root is `/`.
    static func normalize(_ path: String) -> String {
        let joined = path.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }.reduce("") { $0 + "/" + $1 }
        return joined.isEmpty ? "/" : joined
    }

    @Test func everyRouteIsInTheSpecAndEverySpecPathIsRouted() throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        let router = gateway.app.makeRouter()
        let routed = Set(router.routes.map { "\($0.method.rawValue) \(Self.normalize($0.path.description))" })
        // Every GET route also answers HEAD (HeadRequests): documented where it matters (health
        // checks, calendar feeds), never required.
        let served = Set(HeadRequests.servedRoutes(router).map { "\($0.method.rawValue) \(Self.normalize($0.path))" })
        let documented = try Self.specRoutes()
        #expect(!documented.isEmpty)
        for route in routed.subtracting(documented).sorted() {
            Issue.record("route missing from openapi.yaml: \(route)")
        }
        for route in documented.subtracting(served).sorted() {
            Issue.record("openapi.yaml documents a route the router lacks: \(route)")
        }
    }
}
