import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// A served path asked with a method it does not take answers 405 with `Allow` (RFC 9110
/// §15.5.6), in the form of the prefix's protocol; unknown paths and missing resources stay 404.
@Suite("Methods a path does not take")
struct MethodNotAllowedTests {
    @Test func servedPathsAnswer405WithAllowAndEverythingElseKeeps404() async throws {
        let gateway = try await TestGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        try await gateway.withRouter { client async throws in
            for (method, path, allow) in [
                (HTTPRequest.Method.delete, "/v1/registration/classes", "GET, HEAD"),
                (.put, "/v1/admin/queues/default/pause", "POST"),
                (.patch, "/v1/admin/jobs/12", "DELETE, GET, HEAD"),
                (.delete, "/healthz", "GET, HEAD"),
                // A literal segment wins over a parameter, as in the router: not :accountId's DELETE.
                (.delete, "/v1/me/gradebook-accounts/oauth", "POST"),
                (.get, "/v1/me/gradebook-accounts/oauth", "POST"),
            ] as [(HTTPRequest.Method, String, String)] {
                let reply = try await client.json(method, path, token: admin)
                #expect(reply.status == .methodNotAllowed, "\(method) \(path): \(reply.status)")
                #expect(reply.headers[.allow] == allow, "\(method) \(path): \(reply.headers[.allow] ?? "no Allow")")
            }
            // The SDSU protocol answers a URL asked with a method it does not take as one it does
            // not have: its HTML 404 (seed 000), with no Allow.
            let sdsu = try await client.json(.put, "/registration/subjectlist")
            #expect(sdsu.status == .notFound && sdsu.headers[.allow] == nil)
            #expect(sdsu.headers[.contentType]?.hasPrefix("text/html") == true)
            let problem = try await client.json(.delete, "/v1/registration/classes")
            #expect(problem.headers[.contentType]?.hasPrefix("application/problem+json") == true)
            #expect(try await client.json(.get, "/v1/no-such-thing", token: admin).status == .notFound)
            #expect(try await client.json(.post, "/v1/no-such-thing", token: admin).status == .notFound)
            #expect(try await client.json(.get, "/v1/admin/jobs/999999", token: admin).status == .notFound, "a served method's own 404")
        }
    }
}
