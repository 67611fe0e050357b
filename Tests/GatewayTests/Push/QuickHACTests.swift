import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import TestSupport
import Testing

/// The QuickHAC push API at `/ios/` (seed 004), against the demo's gradebook simulator as
/// district 1: every method, every status value, and the 406 / 418 / 501 rules.
@Suite("QuickHAC /ios/ protocol")
struct QuickHACTests {
    static func post(_ client: some TestClientProtocol, _ path: String, _ form: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form)
        ) { response in
            (response.status, (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]) ?? [:])
        }
    }

    @Test func everyMethodAnswersItsStatusValues() async throws {
        let (app, directory) = try DemoGateway.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "device-\(UUID().uuidString)"
        let token = String(repeating: "0f", count: 32)
        try await app.makeApplication().test(.live) { client async throws in
            var (status, body) = try await Self.post(client, "/ios/register", "uuid=\(uuid)")
            #expect(status == .ok)
            #expect(body["status"] as? Int == 1, "a new registration")
            #expect(body["lastError"] as? Int == 0)
            (status, body) = try await Self.post(client, "/ios/register_device/", "uuid=\(uuid)&token=\(token)")
            #expect(status == .ok)
            #expect(body["status"] as? Int == 0, "known device, token updated; trailing slash and alias accepted")

            (status, body) = try await Self.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1")
            #expect(status == .ok)
            #expect(body["status"] as? Int == 0)
            (status, body) = try await Self.post(client, "/ios/account_add/", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1")
            #expect(body["status"] as? Int == 1, "already there")
            (status, _) = try await Self.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=wrong&district=1")
            #expect(status.code == 418, "the upstream refused")
            (status, _) = try await Self.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=77")
            #expect(status.code == 418, "unknown district")
            (status, _) = try await Self.post(client, "/ios/account_add", "uuid=unknown-device-123&user=jdoe&pass=gradebook-test-1&district=1")
            #expect(status.code == 418, "unknown device")

            (status, body) = try await Self.post(client, "/ios/student_add", "uuid=\(uuid)&user=jdoe&id=jdoe")
            #expect(status == .ok && body["status"] as? Int == 0)
            (status, body) = try await Self.post(client, "/ios/student_add", "uuid=\(uuid)&user=jdoe&id=jdoe")
            #expect(body["status"] as? Int == 1)
            // A student's account sees that student only (the upstream's enrollments say so).
            (status, body) = try await Self.post(client, "/ios/student_add", "uuid=\(uuid)&user=jdoe&id=asmith")
            #expect(status.code == 418)
            #expect(body["lastError"] as? Int == 13)
            (status, _) = try await Self.post(client, "/ios/student_add", "uuid=\(uuid)&user=nobody&id=1")
            #expect(status.code == 418, "no such account on the device")
            (status, body) = try await Self.post(client, "/ios/student_remove", "uuid=\(uuid)&user=jdoe&id=jdoe")
            #expect(body["status"] as? Int == 0)
            (status, body) = try await Self.post(client, "/ios/student_remove", "uuid=\(uuid)&user=jdoe&id=jdoe")
            #expect(body["status"] as? Int == 1)
            // The last student removed took the account with it.
            (status, body) = try await Self.post(client, "/ios/account_remove", "uuid=\(uuid)&user=jdoe")
            #expect(body["status"] as? Int == 1)
            (status, body) = try await Self.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1")
            #expect(body["status"] as? Int == 0, "added again after removal")
            (status, body) = try await Self.post(client, "/ios/account_remove/", "uuid=\(uuid)&user=jdoe")
            #expect(body["status"] as? Int == 0)

            for (path, form) in [
                ("/ios/register", ""), ("/ios/account_add", "uuid=\(uuid)&user=jdoe&district=1"), ("/ios/account_remove", "uuid=\(uuid)"),
                ("/ios/student_add", "uuid=\(uuid)&user=jdoe"), ("/ios/student_remove", "user=jdoe&id=1"),
            ] {
                let (missing, answer) = try await Self.post(client, path, form)
                #expect(missing == .notAcceptable, "\(path) \(form)")
                #expect(answer["status"] as? Int == -1)
            }
        }
    }

    @Test func plainHTTPIsNotImplementedWhereHTTPSIsRequired() async throws {
        let gateway = try TestGateway { $0.requireHTTPS = true }
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let (status, body) = try await Self.post(client, "/ios/register", "uuid=device-12345678")
            #expect(status == .notImplemented)
            #expect(body["status"] as? Int == -1)
        }
    }

    @Test func theUUIDIsNeverStoredAsIs() async throws {
        let (app, directory) = try DemoGateway.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "secret-device-\(UUID().uuidString)"
        try await app.makeApplication().test(.live) { client async throws in
            #expect(try await Self.post(client, "/ios/register", "uuid=\(uuid)").0 == .ok)
            #expect(try await Self.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1").0 == .ok)
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(data.range(of: Data(uuid.utf8)) == nil, "\(file) holds the device uuid")
            #expect(data.range(of: Data("gradebook-test-1".utf8)) == nil, "\(file) holds the password")
        }
    }
}
