import AuthTestSupport
import Foundation
import GatewayCore
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import NIOCore
import GRDB
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import Push
import TestSupport
import Testing
import SQLiteStorage

/// Issue 20, High: an anonymous caller can't make the gateway poll upstream without limit.
/// `/ios/` is throttled per client network, a device stores a bounded number of accounts and an
/// account follows a bounded number of students. On the Push module with the demo's gradebook
/// simulator as district 1 (``PushGateway/withQuickHAC(quickHACRequestsPerMinute:_:)``).
@Suite("QuickHAC abuse limits")
struct QuickHACAbuseTests {
    @Test func oneAddressIsThrottledWithRetryAfterInTheProtocolsForm() async throws {
        try await PushGateway.withQuickHAC { gateway in
            try await gateway.withLiveServer { client async throws in
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
    }

    /// `POST` of a form through a client that waits up to 90 s for an answer: the caps are
    /// what this test checks, and under the whole parallel suite one of its requests has taken
    /// longer than the test client's fixed 20 s read timeout (not yet explained).
    static func slowTolerantPost(port: Int) throws -> @Sendable (String, String) async throws -> (HTTPResponse.Status, [String: Any]) {
        let http = CurlHTTPClient(configuration: .init(defaultTimeout: .seconds(90), allowedDestinations: .loopback))
        return { path, form in
            let reply = try await http.execute(OutboundRequest(
                method: .post, url: URL(string: "http://127.0.0.1:\(port)\(path)")!,
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8)
            ))
            return (HTTPResponse.Status(code: reply.status), (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:])
        }
    }

    @Test func devicesAndAccountsAreCapped() async throws {
        try await PushGateway.withQuickHAC { gateway in
            let uuid = "device-\(UUID().uuidString)"
            try await gateway.withLiveServer { client async throws in
                let post = try Self.slowTolerantPost(port: try #require(client.port))
                #expect(try await post("/ios/register", "uuid=\(uuid)").0 == .ok)
                #expect(try await post("/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1").1["status"] as? Int == 0)
                // Invented students are refused: the staff account sees no such enrollment.
                let invented = try await post("/ios/student_add", "uuid=\(uuid)&user=test&id=student0")
                #expect(invented.0.code == 418)
                #expect(invented.1["lastError"] as? Int == 13)
                // The staff account itself and the nine students it teaches: the most one account follows.
                let visible = ["test", "jdoe", "asmith", "bnguyen", "cgarcia", "dpatel", "ekim", "fmueller", "glopez", "hwu"]
                #expect(visible.count == QuickHACService.maximumStudentsPerAccount)
                for student in visible {
                    #expect(try await post("/ios/student_add", "uuid=\(uuid)&user=test&id=\(student)").1["status"] as? Int == 0, "\(student)")
                }
                let over = try await post("/ios/student_add", "uuid=\(uuid)&user=test&id=one-too-many")
                #expect(over.0.code == 418)
                #expect(over.1["lastError"] as? Int == 12)
                // Following one already followed is still fine.
                #expect(try await post("/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe").1["status"] as? Int == 1)

                let students = ["jdoe", "asmith", "bnguyen", "cgarcia"]
                for user in students {
                    #expect(try await post("/ios/account_add", "uuid=\(uuid)&user=\(user)&pass=gradebook-test-1&district=1").1["status"] as? Int == 0)
                }
                let sixth = try await post("/ios/account_add", "uuid=\(uuid)&user=dpatel&pass=gradebook-test-1&district=1")
                #expect(sixth.0.code == 418)
                #expect(sixth.1["lastError"] as? Int == 11)
                // An account already stored can still be updated.
                #expect(try await post("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=gradebook-test-1&district=1").1["status"] as? Int == 1)
            }
        }
    }

    @Test func clientNetworksCountIPv6ByItsSlash64() {
        #expect(ClientNetwork.key("2001:db8:1:2:aaaa::1") == ClientNetwork.key("2001:db8:1:2:bbbb:cccc:dddd:eeee"))
        #expect(ClientNetwork.key("2001:db8:1:2::1") != ClientNetwork.key("2001:db8:1:3::1"))
        #expect(ClientNetwork.key("192.0.2.7") == "192.0.2.7")
    }

    /// The uuid is the device's only credential: it must be a UUID, and it is stored as an HMAC
    /// under a server secret; a device stored under the old plain SHA-256 is moved on first use.
    @Test func uuidsAreUUIDsStoredAsKeyedHashes() async throws {
        try await PushGateway.withQuickHAC { gateway in
            let uuid = UUID().uuidString, legacyUUID = "quickhac-\(UUID().uuidString)"
            _ = try await gateway.database.pool.write { db in
                try SQLiteDeviceStore().insert(
                    NewDevice(accountID: nil, uuidHash: QuickHACDeviceKey.legacyKey(legacyUUID), name: "QuickHAC", address: .log), at: Date(), in: db
                )
            }
            try await gateway.withLiveServer { client async throws in
                for bad in ["x", "device-12345678", "00000000-0000-0000-0000-000000000000", "11111111-1111-1111-1111-111111111111", "not-a-uuid-at-all-but-long-enough-to-pass-36"] {
                    let (status, body) = try await client.quickHAC("/ios/register", "uuid=\(bad)")
                    #expect(status.code == 418, "\(bad)")
                    #expect(body["lastError"] as? Int == 2, "\(bad)")
                }
                #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").1["status"] as? Int == 1)
                #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid.lowercased())").1["status"] as? Int == 1, "another uuid")
                #expect(try await client.quickHAC("/ios/register", "uuid=\(legacyUUID)").1["status"] as? Int == 0, "the old device is known")
            }
            let hashes = try await gateway.database.pool.read { db in try String.fetchAll(db, sql: "SELECT uuid_hash FROM push_devices WHERE uuid_hash IS NOT NULL") }
            #expect(hashes.count == 3)
            for stored in [uuid, legacyUUID] {
                #expect(!hashes.contains(QuickHACDeviceKey.legacyKey(stored)), "no plain SHA-256 is left")
                #expect(!hashes.contains { $0.contains(stored) })
            }
        }
    }
}
