import Crypto
import Foundation
import GatewayCore
import HTTPClient
@testable import Push
import Testing

/// The Web Push channel against a recording client: the request it builds and what each
/// answer becomes.
@Suite("Web Push channel")
struct WebPushChannelTests {
    static let clock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000))
    static let userAgent = P256.KeyAgreement.PrivateKey()
    static let auth = Data((0..<16).map { UInt8($0) })
    static let endpoint = URL(string: "https://push.example.net/wpush/v2/subscription-token")!
    static let address = DeviceAddress.webPush(
        endpoint: endpoint, p256dh: Base64URL.encode(userAgent.publicKey.x963Representation), auth: Base64URL.encode(auth)
    )
    static let notification = OutgoingNotification(
        id: "n-42", category: "seat.open", title: "Seat open", body: "CS 101 has a seat", data: ["class": "101"],
        urgent: true, collapseID: "seat-open-101", expiresAt: Date(timeIntervalSince1970: 1_790_000_000 + 3600)
    )

    static func channel(_ client: any HTTPClient) throws -> WebPushChannel {
        let signer = try VAPIDSigner(keys: .generate(), subject: "mailto:ops@campus.example.edu")
        return WebPushChannel(client: client, configuration: .init(vapid: signer), clock: clock)
    }

    @Test func theRequestIsEncryptedSignedAndLabelled() async throws {
        let client = RecordingHTTPClient(status: 201)
        let outcome = try await Self.channel(client).deliver(Self.notification, to: Self.address)
        #expect(outcome == .delivered(status: 201))
        let request = try #require(client.requests.first)
        #expect(request.method == .post)
        #expect(request.url == Self.endpoint)
        #expect(!request.followRedirects)
        #expect(request.headers["Content-Encoding"] == "aes128gcm")
        #expect(request.headers["Content-Type"] == "application/octet-stream")
        #expect(request.headers["TTL"] == "3600")
        #expect(request.headers["Urgency"] == "high")
        #expect(request.headers["Topic"] == "seat-open-101")
        #expect(request.headers["Authorization"]?.hasPrefix("vapid t=") == true)
        let plaintext = try WebPushEncryption.decrypt(try #require(request.body), userAgentPrivateKey: Self.userAgent, authSecret: Self.auth)
        #expect(String(decoding: plaintext, as: UTF8.self)
            == #"{"body":"CS 101 has a seat","category":"seat.open","data":{"class":"101"},"id":"n-42","title":"Seat open"}"#)
    }

    @Test func defaultsWithoutExpiryUrgencyOrAUsableTopic() async throws {
        let client = RecordingHTTPClient(status: 201)
        let channel = try Self.channel(client)
        var plain = Self.notification
        plain.urgent = false
        plain.expiresAt = nil
        plain.collapseID = "seat.open:101"
        #expect(await channel.deliver(plain, to: Self.address) == .delivered(status: 201))
        plain.collapseID = String(repeating: "a", count: 33)
        _ = await channel.deliver(plain, to: Self.address)
        plain.expiresAt = Self.clock.now()
        _ = await channel.deliver(plain, to: Self.address)
        let requests = client.requests
        #expect(requests.map { $0.headers["TTL"] } == ["2419200", "2419200", "0"])
        #expect(requests.allSatisfy { $0.headers["Urgency"] == "normal" && !$0.headers.contains("Topic") })
    }

    @Test func answersMapToOutcomes() async throws {
        let cases: [(OutboundResponse, DeliveryOutcome)] = [
            (.init(status: 200), .delivered(status: 200)),
            (.init(status: 202), .delivered(status: 202)),
            (.init(status: 404), .deactivate(reason: "push service answered 404: the subscription is gone")),
            (.init(status: 410), .deactivate(reason: "push service answered 410: the subscription is gone")),
            (.init(status: 429, headers: ["Retry-After": "120"]), .retry(after: .seconds(120), reason: "push service answered 429")),
            (.init(status: 503, headers: ["Retry-After": "Mon, 21 Sep 2026 14:14:20 GMT"]), .retry(after: .seconds(60), reason: "push service answered 503")),
            (.init(status: 500), .retry(after: nil, reason: "push service answered 500")),
            (.init(status: 413), .discarded(reason: "push service answered 413: payload too large")),
            (.init(status: 400, body: Data("UnauthorizedRegistration\n\u{1}".utf8)), .discarded(reason: "push service answered 400: UnauthorizedRegistration")),
            (.init(status: 403), .discarded(reason: "push service answered 403")),
            (.init(status: 301, headers: ["Location": "https://10.0.0.1/"]), .discarded(reason: "push service answered 301")),
        ]
        for (response, expected) in cases {
            let channel = try Self.channel(RecordingHTTPClient { _ in response })
            #expect(await channel.deliver(Self.notification, to: Self.address) == expected, "\(response.status)")
        }
    }

    @Test func transportFailuresRetryAndRefusedDestinationsAreDiscarded() async throws {
        let cases: [(HTTPClientError, DeliveryOutcome)] = [
            (.timeout(message: "t"), .retry(after: nil, reason: "timed out")),
            (.connectionFailed(message: "c"), .retry(after: nil, reason: "connection failed")),
            (.tlsFailure(message: "x"), .retry(after: nil, reason: "TLS failure")),
            (.destinationNotAllowed(address: "10.0.0.7", reason: "private"),
             .discarded(reason: "the destination resolves to a private address, which is not allowed")),
        ]
        for (error, expected) in cases {
            let channel = try Self.channel(RecordingHTTPClient { _ in throw error })
            #expect(await channel.deliver(Self.notification, to: Self.address) == expected)
        }
    }

    @Test func unsendableNotificationsNeverReachTheClient() async throws {
        let client = RecordingHTTPClient(status: 201)
        let channel = try Self.channel(client)
        var expired = Self.notification
        expired.expiresAt = Self.clock.now().addingTimeInterval(-1)
        #expect(await channel.deliver(expired, to: Self.address) == .discarded(reason: "expired before it was sent"))
        var huge = Self.notification
        huge.body = String(repeating: "x", count: 4000)
        #expect(await channel.deliver(huge, to: Self.address)
            == .discarded(reason: "the payload is \(try WebPushChannel.payload(huge).count) bytes; Web Push allows 3993"))
        let badKey = DeviceAddress.webPush(endpoint: Self.endpoint, p256dh: Base64URL.encode(Data(count: 65)), auth: Base64URL.encode(Self.auth))
        #expect(await channel.deliver(Self.notification, to: badKey)
            == .deactivate(reason: "the subscription's p256dh is not an uncompressed P-256 public key"))
        #expect(await channel.deliver(Self.notification, to: .log) == .discarded(reason: "not a Web Push address"))
        for endpoint in ["https://127.0.0.1/x", "https://169.254.169.254/latest", "http://push.example.net/x", "https://[fe80::1]/x"] {
            let address = DeviceAddress.webPush(endpoint: URL(string: endpoint)!, p256dh: "k", auth: "a")
            let outcome = await channel.deliver(Self.notification, to: address)
            guard case .discarded(let reason) = outcome else {
                Issue.record("\(endpoint): \(outcome)")
                continue
            }
            #expect(reason.hasPrefix("endpoint not allowed: "), "\(endpoint)")
        }
        #expect(client.requests.isEmpty)
    }
}
