import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Yes/no query flags take true/false (or 1/0, yes/no): anything else is a 400 naming the flag,
/// not a silent "no" that runs a different operation than the client meant.
@Suite("Query flags")
struct QueryFlagTests {
    @Test func unreadableFlagsAre400AndReadableOnesWork() async throws {
        let gateway = try await TestGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        try await gateway.withRouter { client async throws in
            for (method, path, body, flag) in [
                (HTTPRequest.Method.get, "/readyz?deep=AAA", nil, "deep"),
                (.post, "/v1/admin/registration/imports?strict=null", "{}", "strict"),
                (.post, "/v1/admin/scheduling/ratings?replace=maybe", #"{"courses":[],"instructors":[]}"#, "replace"),
                (.delete, "/v1/admin/registration/classes/1?dropStudents=2", nil, "dropStudents"),
            ] as [(HTTPRequest.Method, String, String?, String)] {
                let reply = try await client.json(method, path, body: body, token: admin)
                #expect(reply.status == .badRequest, "\(path): \(reply.status)")
                #expect(reply.object["invalidFields"] as? [String] == [flag], "\(path): \(reply.object)")
            }
            #expect(try await client.json(.get, "/readyz?deep=false").status == .ok)
            #expect(try await client.json(.get, "/readyz?deep=1", token: admin).status == .ok)
        }
    }
}
