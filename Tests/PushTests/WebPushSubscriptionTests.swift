import Crypto
import Foundation
import GatewayCore
import HTTPClient
import Push
import Testing

/// What a browser may subscribe with, and the URL pre-check shared with webhooks.
@Suite("Web Push subscriptions and endpoint policy")
struct WebPushSubscriptionTests {
    static let p256dh = Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
    static let auth = Base64URL.encode(Data(repeating: 9, count: 16))

    @Test func aBrowsersSubscriptionIsAccepted() throws {
        let endpoint = "https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bH"
        let subscription = try WebPushSubscription.validate(endpoint: endpoint, p256dh: Self.p256dh + "=", auth: Self.auth)
        #expect(subscription.endpoint.absoluteString == endpoint)
        #expect(subscription.p256dh == Self.p256dh)
        #expect(subscription.auth == Self.auth)
        #expect(subscription.address == .webPush(endpoint: URL(string: endpoint)!, p256dh: Self.p256dh, auth: Self.auth))
    }

    @Test func badEndpointsAreRefusedNamingTheField() {
        let long = "https://push.example.net/" + String(repeating: "a", count: 2048)
        for endpoint in [
            "", long, "not a url", "/relative", "http://push.example.net/x", "ftp://push.example.net/x",
            "https://user:pass@push.example.net/x", "https://127.0.0.1/x", "https://[::1]/x", "https://10.1.2.3/x",
            "https://169.254.169.254/latest/meta-data", "https://[fe80::1]/x", "https://192.168.1.1/x", "file:///etc/passwd",
        ] {
            let error = #expect(throws: InvalidInput.self, "\(endpoint)") {
                try WebPushSubscription.validate(endpoint: endpoint, p256dh: Self.p256dh, auth: Self.auth)
            }
            #expect(error?.field == "endpoint", "\(endpoint)")
        }
    }

    @Test func badKeysAreRefusedNamingTheField() {
        let key = P256.KeyAgreement.PrivateKey().publicKey
        var offCurve = key.x963Representation
        offCurve[64] ^= 1
        for p256dh in ["", "!!!", Base64URL.encode(key.compressedRepresentation), Base64URL.encode(key.rawRepresentation),
                       Base64URL.encode(offCurve), Base64URL.encode(Data(count: 65))] {
            #expect(throws: InvalidInput("p256dh must be base64url of an uncompressed P-256 public key (65 bytes)", field: "p256dh")) {
                try WebPushSubscription.validate(endpoint: "https://push.example.net/x", p256dh: p256dh, auth: Self.auth)
            }
        }
        for auth in ["", Base64URL.encode(Data(count: 15)), Base64URL.encode(Data(count: 32)), "a b"] {
            #expect(throws: InvalidInput("auth must be base64url of 16 bytes", field: "auth")) {
                try WebPushSubscription.validate(endpoint: "https://push.example.net/x", p256dh: Self.p256dh, auth: auth)
            }
        }
    }

    @Test func thePolicyIsStrictUnlessRelaxedForLoopbackTesting() {
        let strict = PushEndpointPolicy.strict
        #expect(strict.refusal(for: URL(string: "https://push.example.net/x")!) == nil)
        #expect(strict.refusal(for: URL(string: "https://93.184.216.34/x")!) == nil)
        #expect(strict.refusal(for: URL(string: "http://example.com/x")!) == "only https URLs are allowed")
        #expect(strict.refusal(for: URL(string: "https://127.0.0.1/x")!) == "loopback addresses are not allowed")
        #expect(strict.refusal(for: URL(string: "https://169.254.169.254/x")!) == "cloud metadata addresses are not allowed")
        #expect(strict.refusal(for: URL(string: "https://[fe80::1]/x")!) == "link-local addresses are not allowed")
        #expect(strict.refusal(for: URL(string: "https://[fd00::1]/x")!) == "private addresses are not allowed")
        #expect(strict.refusal(for: URL(string: "https://[::ffff:10.0.0.1]/x")!) == "private addresses are not allowed")
        #expect(strict.refusal(for: URL(string: "http://127.0.0.1:8080/x")!) == "only https URLs are allowed")

        let testing = PushEndpointPolicy(allowInsecureLoopbackForTesting: true, allowedDestinations: .loopback)
        #expect(testing.refusal(for: URL(string: "http://127.0.0.1:8080/x")!) == nil)
        #expect(testing.refusal(for: URL(string: "http://localhost:8080/x")!) == nil)
        #expect(testing.refusal(for: URL(string: "http://[::1]:8080/x")!) == nil)
        #expect(testing.refusal(for: URL(string: "http://example.com/x")!) == "only https URLs are allowed")
        #expect(testing.refusal(for: URL(string: "http://10.0.0.1/x")!) == "only https URLs are allowed")
        #expect(testing.refusal(for: URL(string: "https://169.254.169.254/x")!) == "cloud metadata addresses are not allowed")
        // Relaxing http alone does not open loopback: the allow list must say so too.
        let httpOnly = PushEndpointPolicy(allowInsecureLoopbackForTesting: true)
        #expect(httpOnly.refusal(for: URL(string: "http://127.0.0.1:8080/x")!) == "loopback addresses are not allowed")
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("99999999999999999999999", now: now) == RetryAfter.maximum)
        #expect(RetryAfter.parse("172800", now: now) == RetryAfter.maximum)
        // 1_790_000_000 is Mon, 21 Sep 2026 14:13:20 GMT.
        #expect(RetryAfter.parse("Mon, 21 Sep 2026 14:15:20 GMT", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Monday, 21-Sep-26 14:15:20 GMT", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Mon Sep 21 14:15:20 2026", now: now) == .seconds(120))
        #expect(RetryAfter.parse("Mon, 21 Sep 2026 14:00:00 GMT", now: now) == .zero)
        #expect(RetryAfter.parse(nil, now: now) == nil)
        #expect(RetryAfter.parse("", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
        #expect(RetryAfter.parse("soon", now: now) == nil)
    }
}
