import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// The QuickHAC push API at `/ios/` (seed 004) on the Push module (``PushGateway/withQuickHAC(quickHACRequestsPerMinute:_:)``),
/// against the demo's gradebook simulator as district 1 through Gradebook's real device
/// accounts: every method, every status value, and the 406 / 418 rules. (The 501 for plain HTTP
/// where HTTPS is required is the application's front door: GatewayTests' QuickHACHTTPSTests.)
@Suite("QuickHAC /ios/ protocol")
struct QuickHACTests {

    @Test func everyMethodAnswersItsStatusValues() async throws {
        try await PushGateway.withQuickHAC { gateway in
            let uuid = "device-\(UUID().uuidString)"
            let token = String(repeating: "0f", count: 32)
            try await gateway.withLiveServer { client async throws in
                var (status, body) = try await client.quickHAC("/ios/register", "uuid=\(uuid)")
                #expect(status == .ok)
                #expect(body["status"] as? Int == 1, "a new registration")
                #expect(body["lastError"] as? Int == 0)
                (status, body) = try await client.quickHAC("/ios/register_device/", "uuid=\(uuid)&token=\(token)")
                #expect(status == .ok)
                #expect(body["status"] as? Int == 0, "known device, token updated; trailing slash and alias accepted")

                (status, body) = try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1")
                #expect(status == .ok)
                #expect(body["status"] as? Int == 0)
                (status, body) = try await client.quickHAC("/ios/account_add/", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1")
                #expect(body["status"] as? Int == 1, "already there")
                (status, _) = try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=wrong&district=1")
                #expect(status.code == 418, "the upstream refused")
                (status, _) = try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=77")
                #expect(status.code == 418, "unknown district")
                (status, _) = try await client.quickHAC("/ios/account_add", "uuid=unknown-device-123&user=jdoe&pass=gradebook-test-1&district=1")
                #expect(status.code == 418, "unknown device")

                (status, body) = try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=jdoe&id=jdoe")
                #expect(status == .ok && body["status"] as? Int == 0)
                (status, body) = try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=jdoe&id=jdoe")
                #expect(body["status"] as? Int == 1)
                // A student's account sees that student only (the upstream's enrollments say so).
                (status, body) = try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=jdoe&id=asmith")
                #expect(status.code == 418)
                #expect(body["lastError"] as? Int == 13)
                (status, _) = try await client.quickHAC("/ios/student_add", "uuid=\(uuid)&user=nobody&id=1")
                #expect(status.code == 418, "no such account on the device")
                (status, body) = try await client.quickHAC("/ios/student_remove", "uuid=\(uuid)&user=jdoe&id=jdoe")
                #expect(body["status"] as? Int == 0)
                (status, body) = try await client.quickHAC("/ios/student_remove", "uuid=\(uuid)&user=jdoe&id=jdoe")
                #expect(body["status"] as? Int == 1)
                // The last student removed took the account with it.
                (status, body) = try await client.quickHAC("/ios/account_remove", "uuid=\(uuid)&user=jdoe")
                #expect(body["status"] as? Int == 1)
                (status, body) = try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1")
                #expect(body["status"] as? Int == 0, "added again after removal")
                (status, body) = try await client.quickHAC("/ios/account_remove/", "uuid=\(uuid)&user=jdoe")
                #expect(body["status"] as? Int == 0)

                for (path, form) in [
                    ("/ios/register", ""), ("/ios/account_add", "uuid=\(uuid)&user=jdoe&district=1"), ("/ios/account_remove", "uuid=\(uuid)"),
                    ("/ios/student_add", "uuid=\(uuid)&user=jdoe"), ("/ios/student_remove", "user=jdoe&id=1"),
                ] {
                    let (missing, answer) = try await client.quickHAC(path, form)
                    #expect(missing == .notAcceptable, "\(path) \(form)")
                    #expect(answer["status"] as? Int == -1)
                }
            }
        }
    }

    @Test func theUUIDIsNeverStoredAsIs() async throws {
        try await PushGateway.withQuickHAC { gateway in
            let directory = URL(fileURLWithPath: gateway.database.path).deletingLastPathComponent()
            let uuid = "secret-device-\(UUID().uuidString)"
            try await gateway.withLiveServer { client async throws in
                #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
                #expect(try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1").0 == .ok)
            }
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let data = try Data(contentsOf: directory.appendingPathComponent(file))
                #expect(data.range(of: Data(uuid.utf8)) == nil, "\(file) holds the device uuid")
                #expect(data.range(of: Data("gradebook-test-1".utf8)) == nil, "\(file) holds the password")
            }
        }
    }
}
