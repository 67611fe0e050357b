import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

/// Hostile input on the Cal Poly gradebook protocol (`/gradebook/.../grades.json`) over the
/// Gradebook module's routes with the demo's simulator as source 1 (``GradebookDemoTests``):
/// wrong types, huge values, unicode and control characters, SQL metacharacters, repeated
/// parameters, broken credentials. Each answers in the protocol's form (never a problem document,
/// never a 5xx of the gateway's own), and the student is still served after.
@Suite("Gradebook protocol under hostile input")
struct GradebookHostileInputTests {
    static let hostile = HostileInput.values

    static func encoded(_ value: String) -> String { HostileInput.encoded(value) }

    /// A gradebook compatibility answer: never a 500 of the gateway's own, never a problem
    /// document; the gateway's own refusals are a JSON string.
    static func expectGradebookForm(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status.code != 500 && reply.status.code != 501, "\(what): \(reply.status) \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        #expect(!(reply.contentType ?? "").contains("problem"), "\(what): a problem document", sourceLocation: sourceLocation)
        if [400, 401, 404, 429, 502, 503, 504].contains(reply.status.code), reply.contentType?.hasPrefix("application/json") == true {
            let parsed = try? JSONSerialization.jsonObject(with: Data(reply.body.utf8), options: .fragmentsAllowed)
            #expect(parsed is String, "\(what): the gateway's refusal is a JSON string: \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        }
    }

    @Test func gradebookQueriesAnswerInTheProtocolsForm() async throws {
        let good = GradebookDemoTests.basic("test", GradebookDemoTests.password)
        try await GradebookDemoTests.withDemo { gateway, _ in try await gateway.withLiveServer { client async throws in
            func get(_ uri: String, authorization: String? = nil) async throws -> HTTPReply {
                try await client.execute(uri: uri, method: .get, headers: [.authorization: authorization ?? good]) {
                    HTTPReply(status: $0.status, headers: $0.headers, body: String(buffer: $0.body))
                }
            }
            for parameter in ["record", "term", "course", "user", "id", "refresh"] {
                for value in Self.hostile {
                    let uri = "/gradebook/1/grades.json?record=sections&\(parameter)=\(Self.encoded(value))"
                    Self.expectGradebookForm(try await get(uri), "\(parameter)=\(value.prefix(20).debugDescription)")
                }
            }
            for source in ["0", "-1", "9223372036854775808", "abc", "%00", "1%2F..%2F2", "1.0"] {
                Self.expectGradebookForm(try await get("/gradebook/\(source)/grades.json?record=sections"), "source \(source)")
            }
            let many = (0..<40).map { "p\($0)=\($0)" }.joined(separator: "&")
            let tooMany = try await get("/gradebook/1/grades.json?record=sections&\(many)")
            #expect(tooMany.status == .badRequest, "\(tooMany.status)")
            Self.expectGradebookForm(tooMany, "40 parameters")
            Self.expectGradebookForm(try await get("/gradebook/1/grades.json?record=sections&record=enrollments&record=x"), "repeated record")
            for authorization in [
                "Basic", "Basic ", "Basic !!!", "Basic " + Data("no-colon".utf8).base64EncodedString(),
                "Basic " + Data(":".utf8).base64EncodedString(), "Basic " + Data("\u{0}:\u{0}".utf8).base64EncodedString(),
                "Basic " + Data("' OR 1=1 --:x".utf8).base64EncodedString(), "Bearer abc", String(repeating: "B", count: 9000),
                "Basic " + Data("ünï:😀".utf8).base64EncodedString(),
            ] {
                let reply = try await get("/gradebook/1/grades.json?record=sections", authorization: authorization)
                Self.expectGradebookForm(reply, "authorization \(authorization.prefix(30).debugDescription)")
                #expect(reply.status.code >= 400, "\(authorization.prefix(30)): refused, not served: \(reply.status)")
            }
            // After all that the student is still served.
            #expect(try await get("/gradebook/1/grades.json?record=sections").status == .ok)
        } }
    }
}
