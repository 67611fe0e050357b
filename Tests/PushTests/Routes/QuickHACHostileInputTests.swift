import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Storage
import TestSupport
import Testing

/// Hostile input on QuickHAC (`/ios/`) over the Push module, unthrottled, whose accounts are the
/// demo's gradebook simulator's through Gradebook's real device accounts
/// (``PushGateway/withQuickHAC(quickHACRequestsPerMinute:_:)``; the other compatibility protocols:
/// RegistrationTests' SDSUHostileInputTests, GradebookTests' GradebookHostileInputTests): wrong
/// types, huge values, unicode and control characters, SQL metacharacters, empty and truncated
/// bodies, repeated parameters. Each answers in the protocol's form (never a problem document,
/// never a 5xx of the gateway's own), and what it stores is stored literally.
@Suite("QuickHAC protocol under hostile input")
struct QuickHACHostileInputTests {
    static let hostile = HostileInput.values

    static func encoded(_ value: String) -> String { HostileInput.encoded(value) }

    /// A QuickHAC answer: JSON with an integer `status` (and `lastError` when refused) at one of
    /// the protocol's statuses.
    static func expectQuickHACForm(_ reply: HTTPReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect([200, 406, 413, 418, 429].contains(reply.status.code), "\(what): \(reply.status) \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        #expect(reply.contentType?.hasPrefix("application/json") == true, "\(what): \(reply.contentType ?? "none")", sourceLocation: sourceLocation)
        #expect(reply.object["status"] is Int, "\(what): \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        if reply.status != .ok {
            #expect(reply.object["lastError"] is Int, "\(what): \(reply.body.prefix(200))", sourceLocation: sourceLocation)
        }
    }

    static func form(_ client: some TestClientProtocol, _ path: String, _ body: String) async throws -> HTTPReply {
        try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body)
        ) { HTTPReply(status: $0.status, headers: $0.headers, body: String(buffer: $0.body)) }
    }

    @Test func quickHACFormsAnswerInTheProtocolsForm() async throws {
        try await PushGateway.withQuickHAC(quickHACRequestsPerMinute: 0) { gateway in
            let uuid = "device-\(UUID().uuidString)"
            try await gateway.withLiveServer { client async throws in
                #expect(try await Self.form(client, "/ios/register", "uuid=\(uuid)").status == .ok)
                let paths = ["/ios/register", "/ios/register_device", "/ios/account_add", "/ios/account_remove", "/ios/student_add", "/ios/student_remove"]
                let broken = [
                    "", "uuid", "uuid=", "uuid=%", "uuid=%ZZ", "=", "&&&", "uuid=\(uuid)&uuid=other-\(UUID().uuidString)",
                    "uuid=\(uuid)&user=test&user=other&pass=x&district=1&id=a", "\u{0}\u{1}\u{2}", "uuid=\(uuid)%00",
                    "uuid=\(String(repeating: "a", count: 70_000))",
                ]
                for path in paths {
                    for body in broken {
                        Self.expectQuickHACForm(try await Self.form(client, path, body), "\(path) \(body.prefix(40).debugDescription)")
                    }
                    for field in ["uuid", "user", "pass", "district", "id", "token"] {
                        for value in Self.hostile {
                            var fields = ["uuid": uuid, "user": "test", "pass": "gradebook-test-1", "district": "1", "id": "test"]
                            fields[field] = value
                            let body = fields.map { "\($0.key)=\(Self.encoded($0.value))" }.joined(separator: "&")
                            Self.expectQuickHACForm(try await Self.form(client, path, body), "\(path) \(field)=\(value.prefix(20).debugDescription)")
                        }
                    }
                }
                // JSON where a form belongs, and no content type at all.
                let json = try await client.json(.post, "/ios/register", body: #"{"uuid":"\#(uuid)"}"#)
                Self.expectQuickHACForm(json, "JSON body")
                // A token of fullwidth hex digits is not an APNs token.
                let fullwidth = String(repeating: "０ｆ", count: 32)
                let refused = try await Self.form(client, "/ios/register", "uuid=\(uuid)&token=\(Self.encoded(fullwidth))")
                #expect(refused.status.code == 418 && refused.object["lastError"] as? Int == 3, "\(refused.body)")
            }
        }
    }

    @Test func quickHACUuidsWithSQLMetacharactersAreDistinctDevices() async throws {
        try await PushGateway.withQuickHAC(quickHACRequestsPerMinute: 0) { gateway in
            let id = UUID().uuidString
            try await gateway.withLiveServer { client async throws in
                let quote = "x'--;DROP_TABLE_push_devices;-\(id)", doubled = "x\"--;DROP_TABLE_push_devices;-\(id)"
                #expect(try await Self.form(client, "/ios/register", "uuid=\(Self.encoded(quote))").object["status"] as? Int == 1)
                #expect(try await Self.form(client, "/ios/register", "uuid=\(Self.encoded(quote))").object["status"] as? Int == 0)
                #expect(try await Self.form(client, "/ios/register", "uuid=\(Self.encoded(doubled))").object["status"] as? Int == 1)
                #expect(try await Self.form(client, "/ios/register", "uuid=\(id)").object["status"] as? Int == 1)
                // The account is stored under the quoted device only.
                let added = try await Self.form(client, "/ios/account_add", "uuid=\(Self.encoded(quote))&user=test&pass=gradebook-test-1&district=1")
                #expect(added.object["status"] as? Int == 0, "\(added.body)")
                #expect(try await Self.form(client, "/ios/account_remove", "uuid=\(Self.encoded(doubled))&user=test").object["status"] as? Int == 1)
                #expect(try await Self.form(client, "/ios/account_remove", "uuid=\(Self.encoded(quote))&user=test").object["status"] as? Int == 0)
            }
        }
    }
}
