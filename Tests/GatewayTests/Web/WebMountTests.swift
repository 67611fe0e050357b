import Foundation
import GatewayApp
import GatewayHTTP
import HummingbirdTesting
import TestSupport
import Testing

/// The web pages mounted in the whole application: the API and operations routes keep their
/// answers, and every web route is a public GET outside the API's prefixes.
@Suite("Web pages in the application")
struct WebMountTests {
    @Test func theAPIAndOperationsRoutesAreNotShadowed() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let health = try await client.json(.get, "/healthz")
            #expect(health.status == .ok)
            #expect(health.headers[.contentType] == "application/json; charset=utf-8")
            let me = try await client.json(.get, "/v1/me")
            #expect(me.status == .unauthorized)
            #expect(me.contentType == "application/problem+json")
            let admin = try await client.json(.get, "/v1/admin/jobs")
            #expect(admin.status == .unauthorized)
            let classes = try await client.json(.get, "/v1/registration/classes?limit=1")
            #expect(classes.status == .ok)
            // The API's answers carry the API's sandboxing policy, not the pages'.
            #expect(classes.headers[.contentSecurityPolicy] == ResponseHeaderTests.sandbox)
        }
        // Every web route is public and a GET; none lies under an API or compatibility prefix.
        _ = gateway.app.makeRouter()
        let web = gateway.app.routes.all.filter { ["/", "/admin", "/sw.js", "/assets/{file}"].contains(OpenAPIContractTests.normalize($0.path)) }
        #expect(Set(web.map { OpenAPIContractTests.normalize($0.path) }).count == 4, "\(web.map(\.path))")
        for entry in web {
            #expect(entry.method == "GET")
            #expect(entry.access == RouteAccess.public.description)
        }
    }
}
