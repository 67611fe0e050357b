import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Path ids no resource can have (past 64 bits, not a number) answer like an id nothing has:
/// 404 naming the id as written, never a different resource's id (0) and never an unlisted 400.
/// Routes that create at that id (PUT) answer 422 naming the path parameter instead.
@Suite("Ids no resource can have")
struct UnusableIdTests {
    static let oversized = "9223372036854775808"

    @Test(arguments: [oversized, "abc"]) func readsAndChangesAnswer404AndCreatesAnswer422(_ id: String) async throws {
        let gateway = try await TestGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        try await gateway.withRouter { client async throws in
            for (method, path, body) in [
                (HTTPRequest.Method.get, "/v1/registration/classes/\(id)", nil),
                (.get, "/v1/admin/gradebook/sources/\(id)", nil),
                (.delete, "/v1/admin/gradebook/sources/\(id)", nil),
                (.patch, "/v1/admin/accounts/\(id)", #"{"disabled":true}"#),
                (.put, "/v1/admin/registration/students/\(id)/profile", #"{"redId":"123456789","firstName":"A","lastName":"B"}"#),
                (.get, "/v1/admin/registration/classes/\(id)/roster", nil),
            ] as [(HTTPRequest.Method, String, String?)] {
                let reply = try await client.json(method, path, body: body, token: admin)
                #expect(reply.status == .notFound, "\(method) \(path): \(reply.status) \(reply.object)")
                #expect(!(reply.object["detail"] as? String ?? "").contains("id 0"), "\(path): \(reply.object)")
            }
            let source = try await client.json(.get, "/v1/admin/gradebook/sources/\(id)", token: admin)
            #expect((source.object["detail"] as? String ?? "").contains(id), "\(source.object)")
            for (path, body) in [
                ("/v1/admin/registration/classes/\(id)", #"{"subject":"CS","course":"101","section":"01","seats":10}"#),
                ("/v1/admin/gradebook/sources/\(id)", #"{"name":"x","kind":"calpoly","baseUrl":"https://example.edu"}"#),
            ] {
                let reply = try await client.json(.put, path, body: body, token: admin)
                #expect(reply.status == .unprocessableContent, "PUT \(path): \(reply.status) \(reply.object)")
                let fields = reply.object["invalidFields"] as? [String] ?? []
                #expect(fields.contains { $0.hasSuffix("Id") }, "names the path parameter: \(reply.object)")
            }
        }
    }
}
