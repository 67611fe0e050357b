import GatewayCore
import Crypto
import Foundation
import Push
import Testing

/// Standard Webhooks signatures and the secrets behind them.
@Suite("Webhook signatures")
struct WebhookSignatureTests {
    /// The Standard Webhooks specification's published example.
    enum Specification {
        static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
        static let timestamp: Int64 = 1_614_265_330
        static let body = #"{"test": 2432232314}"#
        static let signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    }

    static let secret = Data((0..<32).map { UInt8($0 &* 7 &+ 3) })
    static let body = Data(#"{"data":{"body":"Hi","title":"T"},"id":"n-1","timestamp":"2026-09-21T14:13:20Z","type":"test"}"#.utf8)
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func theSpecificationsExampleIsReproduced() throws {
        let secret = try #require(WebhookSecret(displayValue: Specification.secret))
        let signature = WebhookSignature.sign(
            id: Specification.id, timestamp: Specification.timestamp, body: Data(Specification.body.utf8), secret: secret.bytes
        )
        #expect(signature == Specification.signature)
        try WebhookSignature.verify(
            id: Specification.id, timestamp: "1614265330", body: Data(Specification.body.utf8), signatures: Specification.signature,
            secret: secret.bytes, now: Date(timeIntervalSince1970: 1_614_265_330 + 60)
        )
    }

    @Test func theSignatureIsHMACSHA256OverIdTimestampAndBody() {
        let content = Data("n-1.1790000000.".utf8) + Self.body
        let mac = HMAC<SHA256>.authenticationCode(for: content, using: SymmetricKey(data: Self.secret))
        let expected = "v1," + Data(mac).base64EncodedString()
        #expect(WebhookSignature.sign(id: "n-1", timestamp: 1_790_000_000, body: Self.body, secret: Self.secret) == expected)
    }

    @Test func verificationAcceptsOnlyTheSignedDeliveryWithinTheWindow() throws {
        let signature = WebhookSignature.sign(id: "n-1", timestamp: 1_790_000_000, body: Self.body, secret: Self.secret)
        func verify(
            id: String = "n-1", timestamp: String = "1790000000", body: Data = Self.body, signatures: String? = nil,
            secret: Data = Self.secret, now: Date = Self.now
        ) throws(WebhookVerificationError) {
            try WebhookSignature.verify(id: id, timestamp: timestamp, body: body, signatures: signatures ?? signature, secret: secret, now: now)
        }
        try verify()
        try verify(now: Self.now.addingTimeInterval(299))
        try verify(now: Self.now.addingTimeInterval(-299))
        try verify(signatures: "v1,AAAA v2,whatever \(signature)")
        #expect(throws: WebhookVerificationError.noMatchingSignature) { try verify(body: Self.body + Data(" ".utf8)) }
        #expect(throws: WebhookVerificationError.noMatchingSignature) { try verify(id: "n-2") }
        #expect(throws: WebhookVerificationError.noMatchingSignature) { try verify(timestamp: "1790000001") }
        #expect(throws: WebhookVerificationError.noMatchingSignature) { try verify(secret: Data(repeating: 1, count: 32)) }
        #expect(throws: WebhookVerificationError.noMatchingSignature) { try verify(signatures: "") }
        #expect(throws: WebhookVerificationError.noMatchingSignature) { try verify(signatures: "v2," + signature.dropFirst(3)) }
        #expect(throws: WebhookVerificationError.timestampOutOfTolerance) { try verify(now: Self.now.addingTimeInterval(301)) }
        #expect(throws: WebhookVerificationError.timestampOutOfTolerance) { try verify(now: Self.now.addingTimeInterval(-301)) }
        for timestamp in ["", "-1790000000", "1790000000.5", " 1790000000", "99999999999999999999"] {
            #expect(throws: WebhookVerificationError.malformedTimestamp, "\(timestamp)") { try verify(timestamp: timestamp) }
        }
    }

    @Test func secretsAreRandomShownOnceAndNeverPrinted() throws {
        let secret = WebhookSecret.generate()
        #expect(secret.bytes.count == 32)
        #expect(WebhookSecret.generate().bytes != secret.bytes)
        #expect(secret.displayValue.hasPrefix("whsec_"))
        #expect(WebhookSecret(displayValue: secret.displayValue)?.bytes == secret.bytes)
        #expect(WebhookSecret(displayValue: String(secret.displayValue.dropFirst(6)))?.bytes == secret.bytes)
        #expect(WebhookSecret(displayValue: "whsec_" + Data(count: 15).base64EncodedString()) == nil)
        #expect(WebhookSecret(displayValue: "whsec_not base64") == nil)
        var dumped = ""
        dump(secret, to: &dumped)
        let encoded = secret.bytes.base64EncodedString()
        for text in [secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), dumped] {
            #expect(!text.contains(encoded) && !text.contains("\(Array(secret.bytes))"), "\(text)")
        }
    }
}
