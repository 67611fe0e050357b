import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Push
import Testing

/// Issue 20, High: an anonymous caller can't make the gateway poll upstream without limit.
/// `/ios/` is throttled per client network, a device stores a bounded number of accounts and an
/// account follows a bounded number of students.
@Suite("QuickHAC abuse limits")
struct QuickHACAbuseTests {
    @Test func oneAddressIsThrottledWithRetryAfterInTheProtocolsForm() async throws {
        let (app, directory) = try GradebookDemoTests.gateway()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.makeApplication().test(.live) { client async throws in
            var refused: (HTTPResponse.Status, String?, [String: Any])?
            for index in 0..<80 {
                let uuid = "abuse-\(index)-\(UUID().uuidString)"
                let answer = try await client.execute(
                    uri: "/ios/register", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "uuid=\(uuid)")
                ) { response in
                    (response.status, response.headers[.retryAfter],
                     (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]) ?? [:])
                }
                if answer.0 != .ok { refused = answer; break }
                #expect(index < 60, "the 61st request in a minute is refused")
            }
            let (status, retryAfter, body) = try #require(refused)
            #expect(status == .tooManyRequests)
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
            #expect(body["status"] as? Int == -1)
            #expect(body["lastError"] as? Int == 429)
        }
    }

    @Test func devicesAndAccountsAreCapped() async throws {
        let (app, directory) = try GradebookDemoTests.gateway()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "device-\(UUID().uuidString)"
        try await app.makeApplication().test(.live) { client async throws in
            #expect(try await QuickHACTests.post(client, "/ios/register", "uuid=\(uuid)").0 == .ok)
            #expect(try await QuickHACTests.post(client, "/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1").1["status"] as? Int == 0)
            // Invented students are refused: the staff account sees no such enrollment.
            let invented = try await QuickHACTests.post(client, "/ios/student_add", "uuid=\(uuid)&user=test&id=student0")
            #expect(invented.0.code == 418)
            #expect(invented.1["lastError"] as? Int == 13)
            // The staff account itself and the nine students it teaches: the most one account follows.
            let visible = ["test", "jdoe", "asmith", "bnguyen", "cgarcia", "dpatel", "ekim", "fmueller", "glopez", "hwu"]
            #expect(visible.count == QuickHACService.maximumStudentsPerAccount)
            for student in visible {
                #expect(try await QuickHACTests.post(client, "/ios/student_add", "uuid=\(uuid)&user=test&id=\(student)").1["status"] as? Int == 0, "\(student)")
            }
            let over = try await QuickHACTests.post(client, "/ios/student_add", "uuid=\(uuid)&user=test&id=one-too-many")
            #expect(over.0.code == 418)
            #expect(over.1["lastError"] as? Int == 12)
            // Following one already followed is still fine.
            #expect(try await QuickHACTests.post(client, "/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe").1["status"] as? Int == 1)

            let students = ["jdoe", "asmith", "bnguyen", "cgarcia"]
            for user in students {
                #expect(try await QuickHACTests.post(client, "/ios/account_add", "uuid=\(uuid)&user=\(user)&pass=gradebook-test-1&district=1").1["status"] as? Int == 0)
            }
            let sixth = try await QuickHACTests.post(client, "/ios/account_add", "uuid=\(uuid)&user=dpatel&pass=gradebook-test-1&district=1")
            #expect(sixth.0.code == 418)
            #expect(sixth.1["lastError"] as? Int == 11)
            // An account already stored can still be updated.
            #expect(try await QuickHACTests.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1").1["status"] as? Int == 1)
        }
    }

    @Test func clientNetworksCountIPv6ByItsSlash64() {
        #expect(ClientNetwork.key("2001:db8:1:2:aaaa::1") == ClientNetwork.key("2001:db8:1:2:bbbb:cccc:dddd:eeee"))
        #expect(ClientNetwork.key("2001:db8:1:2::1") != ClientNetwork.key("2001:db8:1:3::1"))
        #expect(ClientNetwork.key("192.0.2.7") == "192.0.2.7")
    }
}
