import Crypto
import Foundation
import GatewayCore
import HTTPClient
import Push
import Testing

/// The Web Push channel over real HTTP with libcurl: a Python push service on 127.0.0.1
/// (push_receiver.py) decrypts every message with http_ece, checks its VAPID token with
/// `cryptography`, and answers the status the test chose. The channel's client allow-lists
/// loopback and `http` is permitted for loopback only in this configuration.
@Suite("Web Push over loopback", .serialized)
struct WebPushLoopbackTests {
    static let userAgent = P256.KeyAgreement.PrivateKey()
    static let auth = Data((0..<16).map { UInt8(200 - $0) })

    static func receiver() async throws -> PushReceiver {
        try await PushReceiver(environment: [
            "WEBPUSH_UA_PRIVATE": Base64URL.encode(userAgent.rawRepresentation),
            "WEBPUSH_AUTH": Base64URL.encode(auth),
        ])
    }

    static func address(_ url: URL) -> DeviceAddress {
        .webPush(endpoint: url, p256dh: Base64URL.encode(userAgent.publicKey.x963Representation), auth: Base64URL.encode(auth))
    }

    static func channel(allowedDestinations: DestinationAllowList, insecureLoopback: Bool) throws -> WebPushChannel {
        let client = CurlHTTPClient(configuration: .init(threadCount: 1, connectTimeout: .seconds(5), allowedDestinations: allowedDestinations))
        let signer = try VAPIDSigner(keys: .generate(), subject: "mailto:ops@campus.example.edu")
        return WebPushChannel(
            client: client,
            configuration: .init(vapid: signer, requestTimeout: .seconds(10), allowInsecureLoopbackForTesting: insecureLoopback)
        )
    }

    @Test func aPushServiceDecryptsAndVerifiesWhatWeSend() async throws {
        let receiver = try await Self.receiver()
        defer { receiver.stop() }
        let channel = try Self.channel(allowedDestinations: .loopback, insecureLoopback: true)
        let notification = OutgoingNotification(
            id: "n-1", category: "waitlist.offer", title: "A seat is yours", body: "Accept by 5 pm", data: ["offer": "77"],
            urgent: true, collapseID: "offer-77", expiresAt: Date().addingTimeInterval(600)
        )
        let outcome = await channel.deliver(notification, to: Self.address(receiver.url("/webpush/201")))
        #expect(outcome == .delivered(status: 201))
        let record = try #require(try receiver.records().first)
        #expect(record.decrypt_error == nil)
        let payload = try JSONSerialization.jsonObject(with: Data(try #require(record.plaintext).utf8)) as? [String: Any]
        #expect(payload?["id"] as? String == "n-1")
        #expect(payload?["title"] as? String == "A seat is yours")
        #expect(payload?["body"] as? String == "Accept by 5 pm")
        #expect(payload?["category"] as? String == "waitlist.offer")
        #expect(payload?["data"] as? [String: String] == ["offer": "77"])
        #expect(record.vapid_problems == [])
        #expect(record.claims?.aud == "http://127.0.0.1:\(receiver.port)")
        let headers = try #require(record.headers)
        #expect(headers["content-encoding"] == "aes128gcm")
        #expect(headers["content-type"] == "application/octet-stream")
        #expect(headers["urgency"] == "high")
        #expect(headers["topic"] == "offer-77")
        let ttl = try #require(headers["ttl"].flatMap { Int($0) })
        #expect((595...600).contains(ttl))
    }

    @Test func statusesMapToOutcomes() async throws {
        let receiver = try await Self.receiver()
        defer { receiver.stop() }
        let channel = try Self.channel(allowedDestinations: .loopback, insecureLoopback: true)
        let notification = OutgoingNotification(id: "n-2", category: "test", title: "Test", body: "Hello")
        let cases: [(String, (DeliveryOutcome) -> Bool)] = [
            ("/webpush/201", { $0 == .delivered(status: 201) }),
            ("/webpush/404", { if case .deactivate = $0 { true } else { false } }),
            ("/webpush/410", { if case .deactivate = $0 { true } else { false } }),
            ("/webpush/429/120", { $0 == .retry(after: .seconds(120), reason: "push service answered 429") }),
            ("/webpush/503/date", {
                guard case .retry(let after?, _) = $0 else { return false }
                return after >= .seconds(80) && after <= .seconds(91)
            }),
            ("/webpush/500", { $0 == .retry(after: nil, reason: "push service answered 500") }),
            ("/webpush/400", { $0 == .discarded(reason: "push service answered 400") }),
            ("/webpush/413", { $0 == .discarded(reason: "push service answered 413: payload too large") }),
        ]
        for (path, matches) in cases {
            let outcome = await channel.deliver(notification, to: Self.address(receiver.url(path)))
            #expect(matches(outcome), "\(path): \(outcome)")
        }
        let records = try receiver.records()
        #expect(records.count == cases.count)
        #expect(records.allSatisfy { $0.plaintext != nil && $0.vapid_problems == [] })
    }

    /// With the production client (nothing allow-listed) and policy, nothing restricted is
    /// contacted: literal addresses and `http` are refused before any request, and a host name
    /// that resolves to loopback is refused by the client on the resolved address.
    @Test func restrictedDestinationsAreRefusedByTheDefaultClient() async throws {
        let receiver = try await Self.receiver()
        defer { receiver.stop() }
        let channel = try Self.channel(allowedDestinations: .none, insecureLoopback: false)
        let notification = OutgoingNotification(id: "n-3", category: "test", title: "Test", body: "Hello")
        let refusedBeforeSending = [
            "https://127.0.0.1:\(receiver.port)/webpush/201": "endpoint not allowed: loopback addresses are not allowed",
            "https://169.254.169.254/latest/meta-data/": "endpoint not allowed: cloud metadata addresses are not allowed",
            "http://example.com/webpush": "endpoint not allowed: only https URLs are allowed",
            "http://127.0.0.1:\(receiver.port)/webpush/201": "endpoint not allowed: only https URLs are allowed",
            "https://[fe80::1]/x": "endpoint not allowed: link-local addresses are not allowed",
            "https://10.0.0.8/x": "endpoint not allowed: private addresses are not allowed",
        ]
        for (endpoint, reason) in refusedBeforeSending {
            #expect(await channel.deliver(notification, to: Self.address(URL(string: endpoint)!)) == .discarded(reason: reason))
        }
        let viaName = await channel.deliver(notification, to: Self.address(URL(string: "https://localhost:\(receiver.port)/webpush/201")!))
        guard case .discarded(let reason) = viaName else {
            Issue.record("localhost was not refused: \(viaName)")
            return
        }
        #expect(reason.hasPrefix("the destination resolves to a loopback address"))
        // Allow-listing loopback on the client alone does not open http.
        let allowListedOnly = try Self.channel(allowedDestinations: .loopback, insecureLoopback: false)
        #expect(await allowListedOnly.deliver(notification, to: Self.address(receiver.url("/webpush/201")))
            == .discarded(reason: "endpoint not allowed: only https URLs are allowed"))
        #expect(try receiver.records().isEmpty)
    }
}
