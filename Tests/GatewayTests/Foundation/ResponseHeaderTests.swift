import Foundation
import GatewayApp
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Every answer, v1 and compatibility, success and failure, carries the headers that keep a
/// browser from reading it as a page of the gateway's origin; the web app's pages keep their
/// own policy.
@Suite("Security headers on every answer")
struct ResponseHeaderTests {
    static let sandbox = "default-src 'none'; frame-ancestors 'none'; sandbox"

    static func expectAPIHeaders(_ reply: HTTPReply, _ what: String) {
        #expect(reply.headers[.xContentTypeOptions] == "nosniff", "\(what)")
        #expect(reply.headers[.contentSecurityPolicy] == sandbox, "\(what)")
        #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(what)")
        #expect(reply.headers[HTTPField.Name("Strict-Transport-Security")!] == nil, "\(what): no HSTS over plain HTTP")
    }

    @Test func apiAndCompatibilityAnswersCarryThem() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let answers: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/registration/classes?limit=1", nil),
                (.get, "/v1/me/devices", nil),
                (.get, "/v1/no-such-route", nil),
                (.get, "/registration/subjectlist", nil),
                (.post, "/registration/registerclass", "{}"),
                (.get, "/gradebook/1/grades.json?record=sections", nil),
                (.post, "/ios/register", "uuid=x"),
                (.get, "/healthz", nil),
                (.head, "/v1/registration/classes?limit=1", nil),
            ]
            for (method, path, body) in answers {
                let reply = try await client.json(method, path, body: body)
                Self.expectAPIHeaders(reply, "\(method) \(path) (\(reply.status.code))")
            }
            // The web app's pages load their own scripts: their policy is the web app's.
            let page = try await client.json(.get, "/")
            #expect(page.headers[.contentSecurityPolicy]?.contains("sandbox") == false)
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
        }
    }
}
