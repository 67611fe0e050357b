import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// A number no field can take (past 64 bits, a fraction for an integer) is a 422 naming the
/// field, not "the body is not valid JSON"; truly malformed JSON still is.
@Suite("Numbers out of range in JSON bodies")
struct BodyNumberTests {
    @Test func outOfRangeNumbersNameTheirFieldAndMalformedJSONIsStill400() async throws {
        let gateway = try await TestGateway.make(.sqlite)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        try await gateway.withRouter { client async throws in
            for body in [#"{"seats": 9223372036854775808}"#, #"{"seats": -9223372036854775809}"#, #"{"seats": 1.5}"#, #"{"seats": 1e400}"#] {
                let reply = try await client.json(.patch, "/v1/admin/registration/classes/1", body: body, token: admin)
                #expect(reply.status == .unprocessableContent, "\(body): \(reply.status) \(reply.object)")
                #expect(reply.object["invalidFields"] as? [String] == ["seats"], "\(body): \(reply.object)")
            }
            let nested = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.sleep","args":{"seconds":1},"maxAttempts":99999999999999999999}"#, token: admin
            )
            #expect(nested.status == .unprocessableContent && nested.object["invalidFields"] as? [String] == ["maxAttempts"], "\(nested.object)")
            let wrongType = try await client.json(.patch, "/v1/admin/registration/classes/1", body: #"{"seats": "ten"}"#, token: admin)
            #expect(wrongType.status == .badRequest && wrongType.object["invalidFields"] as? [String] == ["seats"], "\(wrongType.object)")
            let malformed = try await client.json(.patch, "/v1/admin/registration/classes/1", body: #"{"seats": }"#, token: admin)
            #expect(malformed.status == .badRequest && (malformed.object["detail"] as? String ?? "").contains("not valid JSON"), "\(malformed.object)")
        }
    }
}
