import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Front ends on other origins (`GATEWAY_CORS_ORIGINS`), through the whole application: a
/// listed origin's requests and preflights are answered with its own origin and `Vary: Origin`,
/// another origin gets no CORS header, no credentials are allowed, and the compatibility
/// protocols (for native clients) get none either.
@Suite("Cross-origin requests")
struct CrossOriginTests {
    static let app = "https://app.campus.edu"
    static let dev = "http://localhost:5173"

    static func headers(origin: String, _ extra: HTTPFields = [:]) -> HTTPFields {
        var headers = extra
        headers[.origin] = origin
        return headers
    }

    @Test func listedOriginsAreAnsweredWithTheirOwnOriginAndNoOtherIs() async throws {
        let gateway = try await TestGateway.registration(.sqlite) { $0.corsOrigins = [Self.app, Self.dev] }
        defer { gateway.cleanUp() }
        let token = try await gateway.account("cors-student", role: .student)
        try await gateway.withRouter { client in
            let allowed = try await client.json(.get, "/v1/registration/subjects", headers: Self.headers(origin: Self.dev))
            #expect(allowed.status == .ok)
            #expect(allowed.headers[.accessControlAllowOrigin] == Self.dev)
            #expect(allowed.headers[values: .vary].joined(separator: ",").contains("Origin"))
            #expect(allowed.headers[.accessControlExposeHeaders]?.contains("ETag") == true)
            #expect(allowed.headers[.accessControlExposeHeaders]?.contains("Retry-After") == true)
            #expect(allowed.headers[.accessControlAllowCredentials] == nil, "no cookies from another origin")

            // A signed-in call with a bearer token works from the listed origin.
            var bearer = HTTPFields()
            bearer[.authorization] = "Bearer \(token)"
            let me = try await client.json(.get, "/v1/me", headers: Self.headers(origin: Self.app, bearer))
            #expect(me.status == .ok && me.headers[.accessControlAllowOrigin] == Self.app)
            // Errors carry the headers too, so the front end can read the problem.
            let problem = try await client.json(.get, "/v1/me", headers: Self.headers(origin: Self.app))
            #expect(problem.status == .unauthorized && problem.headers[.accessControlAllowOrigin] == Self.app)

            let refused = try await client.json(.get, "/v1/registration/subjects", headers: Self.headers(origin: "https://evil.example"))
            #expect(refused.status == .ok && refused.headers[.accessControlAllowOrigin] == nil)
            #expect(refused.headers[values: .vary].joined(separator: ",").contains("Origin"))
            let noOrigin = try await client.json(.get, "/v1/registration/subjects")
            #expect(noOrigin.headers[.accessControlAllowOrigin] == nil)
            #expect(try await client.json(.get, "/v1/registration/subjects", headers: Self.headers(origin: "https://app.campus.edu.evil.example"))
                .headers[.accessControlAllowOrigin] == nil, "exact origins only")

            var ask = HTTPFields()
            ask[.accessControlRequestMethod] = "PUT"
            ask[.accessControlRequestHeaders] = "authorization, content-type, if-match"
            let preflight = try await client.json(.options, "/v1/me/schedules/1", headers: Self.headers(origin: Self.app, ask))
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == Self.app)
            let methods = preflight.headers[.accessControlAllowMethods] ?? ""
            #expect(methods.contains("PUT") && methods.contains("PATCH") && methods.contains("DELETE"))
            let allowedHeaders = (preflight.headers[.accessControlAllowHeaders] ?? "").lowercased()
            for name in ["authorization", "content-type", "if-match", "if-none-match"] { #expect(allowedHeaders.contains(name), "\(name)") }
            #expect(preflight.headers[.accessControlMaxAge] == "600")
            #expect(preflight.headers[.accessControlAllowOrigin] != "*")

            let refusedPreflight = try await client.json(.options, "/v1/me/schedules/1", headers: Self.headers(origin: "https://evil.example", ask))
            #expect(refusedPreflight.headers[.accessControlAllowOrigin] == nil && refusedPreflight.status != .noContent)

            // The SDSU protocol is for native clients: no CORS, and its answer is unchanged.
            let sdsu = try await client.json(.get, "/registration/subjectlist", headers: Self.headers(origin: Self.app))
            let plain = try await client.json(.get, "/registration/subjectlist")
            #expect(sdsu.headers[.accessControlAllowOrigin] == nil && sdsu.body == plain.body)
        }
    }

    @Test func withoutOriginsThereIsNoCORS() async throws {
        let gateway = try await TestGateway.registration(.sqlite)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let reply = try await client.json(.get, "/v1/registration/subjects", headers: Self.headers(origin: Self.app))
            #expect(reply.headers[.accessControlAllowOrigin] == nil)
            #expect(try await client.json(.options, "/v1/registration/subjects", headers: Self.headers(origin: Self.app)).status == .methodNotAllowed)
        }
    }

    @Test func originsAreReadAsBrowsersSendThem() {
        #expect(GatewayConfiguration.corsOrigin("https://App.Campus.edu/") == "https://app.campus.edu")
        #expect(GatewayConfiguration.corsOrigin("https://app.campus.edu:443") == "https://app.campus.edu")
        #expect(GatewayConfiguration.corsOrigin("http://localhost:5173") == "http://localhost:5173")
        for bad in ["*", "null", "app.campus.edu", "https://app.campus.edu/path", "ftp://x.edu", "https://u:p@app.campus.edu", ""] {
            #expect(GatewayConfiguration.corsOrigin(bad) == nil, "\(bad)")
        }
    }
}
