import Auth
import Contracts
import GatewayCore
import HTTPTypes
import Jobs
import Storage
import Foundation
import GatewayApp
import Push
import TestSupport
import Testing

/// The composition root installs the APNs channel when its credentials are configured, and
/// refuses to start with credentials it can't use. (The channel itself is tested against an
/// HTTP/2 stand-in in PushTests.)
@Suite("APNs wiring")
struct APNsWiringTests {
    static let keyFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("PushTests/Fixtures/apns_test_key.p8").path
    static let token = String(repeating: "ab", count: 32)

    static func deliverOne(_ gateway: TestGateway) async throws -> StoredNotification? {
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            let body = #"{"channel": "apns", "token": "\#(Self.token)", "topic": "edu.campus.gateway", "environment": "sandbox"}"#
            #expect(try await client.json(.post, "/v1/me/devices", body: body, token: ada).status == .created)
        }
        let accountID = try await gateway.app.accounts.transactions.read { db in try gateway.app.accounts.store.find(username: "ada", in: db)!.id! }
        #expect(try await gateway.app.outbox.notify(accountID: accountID, uniqueKey: "t", OutgoingNotification(id: "t", category: "test", title: "T", body: "B")) == 1)
        let stored = try #require(try await gateway.app.outbox.recent(state: nil, deviceIDs: nil, limit: 1).first)
        _ = try await gateway.app.outbox.deliver(notificationID: stored.id)
        return try await gateway.app.outbox.recent(state: nil, deviceIDs: nil, limit: 1).first
    }

    @Test func withoutCredentialsAPNsNotificationsAreDiscardedWithTheReason() async throws {
        let gateway = try TestGateway { $0.jobs.workersEnabled = false }
        defer { gateway.cleanUp() }
        let after = try await Self.deliverOne(gateway)
        #expect(after?.state == .discarded)
        #expect(after?.lastError?.contains("no apns channel") == true)
    }

    @Test func withCredentialsTheChannelTriesApple() async throws {
        // A closed loopback port stands for an unreachable APNs: the attempt is made and retried.
        let gateway = try TestGateway {
            $0.jobs.workersEnabled = false
            $0.apns = APNsSettings(keyFile: Self.keyFile, keyID: "KEY1234567", teamID: "TEAM123456", baseURL: URL(string: "https://127.0.0.1:9"))
        }
        defer { gateway.cleanUp() }
        let after = try await Self.deliverOne(gateway)
        #expect(after?.state == .pending, "retried later")
        #expect(after?.lastError != nil && after?.lastError?.contains("no apns channel") == false, "\(after?.lastError ?? "")")
    }

    @Test func unusableCredentialsRefuseToStart() throws {
        #expect(throws: StartupRefusal.self) {
            _ = try TestGateway { $0.apns = APNsSettings(keyFile: "/nonexistent/key.p8", keyID: "KEY1234567", teamID: "TEAM123456") }
        }
        #expect(throws: StartupRefusal.self) {
            _ = try TestGateway { $0.apns = APNsSettings(keyFile: Self.keyFile, keyID: "short", teamID: "TEAM123456") }
        }
    }
}
