import Auth
import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
import Push
import Jobs
import Storage
import TestSupport
import Testing

/// Devices at `/v1/me/devices` over the Push module alone (``PushGateway``): registration
/// rules and ownership.
@Suite("Push devices")
struct PushDeviceRouteTests {
    static let apnsToken = String(repeating: "ab", count: 32)

    @Test(arguments: TestBackend.all) func studentsRegisterDevicesAndOthersNeverSeeThem(_ backend: TestBackend) async throws {
        let gateway = try await PushGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/me/devices").status == .unauthorized)
            let log = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log", "name": "laptop"}"#, token: ada)
            #expect(log.status == .created)
            let id = (log.object["device"] as? [String: Any])?["id"] as? Int ?? 0
            let apns = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "apns", "token": "\#(Self.apnsToken)", "topic": "edu.campus.app", "environment": "sandbox"}"#, token: ada)
            #expect(apns.status == .created)
            let webhook = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "https://hooks.example.edu/campus"}"#, token: ada)
            #expect(webhook.status == .created)
            let secret = try #require(webhook.object["webhookSecret"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            let listed = try await client.json(.get, "/v1/me/devices", token: ada)
            #expect((listed.object["items"] as? [Any])?.count == 3)
            #expect(!listed.body.contains(secret.dropFirst(6)), "the secret is shown once, never listed")

            let bad: [(String, String)] = [
                (#"{"channel": "fax"}"#, "channel"),
                (#"{"channel": "apns", "token": "xyz", "topic": "edu.campus.app"}"#, "token"),
                (#"{"channel": "webhook", "url": "http://hooks.example.edu/x"}"#, "url"),
                (#"{"channel": "webhook", "url": "https://127.0.0.1/x"}"#, "url"),
                (#"{"channel": "webhook", "url": "https://169.254.169.254/latest/meta-data"}"#, "url"),
                (#"{"channel": "webhook", "url": "https://10.0.0.8/x"}"#, "url"),
                (#"{"channel": "webpush", "endpoint": "https://push.example.com/x", "p256dh": "AAAA", "auth": "AAAA"}"#, "p256dh"),
            ]
            for (body, field) in bad {
                let reply = try await client.json(.post, "/v1/me/devices", body: body, token: ada)
                #expect(reply.status == .unprocessableContent, "\(body)")
                #expect(reply.object["invalidFields"] as? [String] == [field], "\(body)")
            }

            #expect(try await client.json(.get, "/v1/me/devices/\(id)", token: bob).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/devices/\(id)", token: bob).status == .notFound)
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/test", token: bob).status == .notFound)
            #expect(try await client.json(.get, "/v1/me/devices/\(id)/notifications", token: bob).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/devices/\(id)", token: ada).status == .noContent)
            #expect(try await client.json(.get, "/v1/me/devices/\(id)", token: ada).status == .notFound)
        }
    }
}
