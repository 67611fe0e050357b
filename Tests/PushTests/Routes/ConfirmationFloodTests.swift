import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import Jobs
import Storage
import Push
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// The gateway can't be made to mail a stranger again and again, on both backends: an address
/// gets at most 3 confirmation mails in 24 hours whichever accounts ask and however its devices
/// come and go, and the whole gateway sends at most its hourly cap. (The mails are only queued
/// here; their sending is tested with a real SMTP server in EmailDeviceTests.)
@Suite("Confirmation mail floods")
struct ConfirmationFloodTests {
    static func device(_ reply: HTTPReply) throws -> Int {
        try #require((reply.object["device"] as? [String: Any])?["id"] as? Int)
    }

    static func add(_ client: any TestClientProtocol, _ address: String, token: String) async throws -> HTTPReply {
        try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "\#(address)"}"#, token: token)
    }

    static func expectLimited(_ reply: HTTPReply, _ comment: Comment) {
        #expect(reply.status == .tooManyRequests, comment)
        #expect(reply.object["type"] as? String == "/problems/confirmation-mail-limit", comment)
        #expect(reply.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 } == true, comment)
    }

    /// Before, the quota counted per device: removing the device and adding it again, or
    /// another student adding the address, mailed it again each time.
    @Test(arguments: TestBackend.all)
    func anAddressGetsThreeMailsADayWhoeverAsks(_ backend: TestBackend) async throws {
        let gateway = try await PushGateway.make(backend)
        defer { gateway.cleanUp() }
        let mallory = try await gateway.account("mallory", role: .student)
        let accomplice = try await gateway.account("accomplice", role: .student)
        try await gateway.withRouter { client async throws in
            let first = try await Self.add(client, "victim@example.org", token: mallory)
            #expect(first.status == .created)
            let id = try Self.device(first)
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/resend-confirmation", token: mallory).status == .accepted)
            #expect(try await client.json(.delete, "/v1/me/devices/\(id)", token: mallory).status == .noContent)
            let again = try await Self.add(client, "victim@example.org", token: mallory)
            #expect(again.status == .created, "the third mail")
            #expect(try await client.json(.delete, "/v1/me/devices/\(try Self.device(again))", token: mallory).status == .noContent)
            Self.expectLimited(try await Self.add(client, "victim@example.org", token: mallory), "removed and added again")
            Self.expectLimited(try await Self.add(client, "Victim+tag@EXAMPLE.org", token: accomplice), "another account, the same mailbox")
            #expect(try await Self.add(client, "someone.else@example.org", token: accomplice).status == .created, "other addresses are not affected")
        }
        #expect(try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.email-confirmation'") == 4)
        // The count keeps no address, only keyed hashes.
        #expect(try await gateway.integer("SELECT count(*) FROM push_confirmation_sends") == 4)
        // A day later the address may be mailed again.
        gateway.clock.advance(by: 24 * 3600 + 1)
        let fresh = try await gateway.auth.issueToken(username: "accomplice", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withRouter { client async throws in
            #expect(try await Self.add(client, "victim@example.org", token: fresh).status == .created)
        }
    }

    /// Many accounts each mailing a new address hit the gateway's hourly cap; an hour later
    /// mail flows again.
    @Test(arguments: TestBackend.all)
    func theGatewayStopsAtItsHourlyCap(_ backend: TestBackend) async throws {
        let gateway = try await PushGateway.make(backend, confirmationsPerHour: 4)
        defer { gateway.cleanUp() }
        var made: [String] = []
        for n in 0..<3 { made.append(try await gateway.account("student\(n)", role: .student)) }
        let tokens = made
        try await gateway.withRouter { client async throws in
            for n in 0..<4 {
                #expect(try await Self.add(client, "person\(n)@example.org", token: tokens[n % 2]).status == .created)
            }
            let capped = try await Self.add(client, "person9@example.org", token: tokens[2])
            Self.expectLimited(capped, "the fifth mail of the hour")
            #expect((capped.object["detail"] as? String)?.contains("in an hour") == true)
        }
        gateway.clock.advance(by: 3601)
        let fresh = try await gateway.auth.issueToken(username: "student2", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withRouter { client async throws in
            #expect(try await Self.add(client, "person9@example.org", token: fresh).status == .created)
        }
    }
}
