import Crypto
public import Foundation


/// Why a webhook delivery's signature was not accepted.
public enum WebhookVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `webhook-timestamp` is not whole Unix seconds.
    case malformedTimestamp
    /// `webhook-timestamp` is further from now than the tolerance (a replay, or a bad clock).
    case timestampOutOfTolerance
    /// No `v1,` entry of `webhook-signature` matches.
    case noMatchingSignature

    public var description: String {
        switch self {
        case .malformedTimestamp: "webhook-timestamp is not a Unix time in seconds"
        case .timestampOutOfTolerance: "webhook-timestamp is too far from the current time"
        case .noMatchingSignature: "no webhook-signature entry matches"
        }
    }
}

/// Standard Webhooks signatures: `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>`
/// in `webhook-signature`, with the message id in `webhook-id` and Unix seconds in
/// `webhook-timestamp`. Receivers verify with ``verify(id:timestamp:body:signatures:secret:now:tolerance:)``
/// or any Standard Webhooks library given the `whsec_` secret.
public enum WebhookSignature {
    /// How far a timestamp may be from the receiver's clock, either way: five minutes.
    public static let defaultTolerance: TimeInterval = 5 * 60

    /// The `webhook-signature` value for one delivery.
    public static func sign(id: String, timestamp: Int64, body: Data, secret: Data) -> String {
        "v1," + Data(mac(id: id, timestamp: String(timestamp), body: body, secret: secret)).base64EncodedString()
    }

    /// Checks a delivery as received: the `webhook-id` and `webhook-timestamp` header values,
    /// the raw body, and `webhook-signature` (space-separated entries; any matching `v1` entry
    /// is enough, other versions are ignored). Signatures are compared in constant time.
    public static func verify(
        id: String, timestamp: String, body: Data, signatures: String, secret: Data, now: Date,
        tolerance: TimeInterval = defaultTolerance
    ) throws(WebhookVerificationError) {
        guard !timestamp.isEmpty, timestamp.utf8.count <= 18,
              timestamp.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let seconds = Int64(timestamp) else { throw .malformedTimestamp }
        guard abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { throw .timestampOutOfTolerance }
        let expected = mac(id: id, timestamp: timestamp, body: body, secret: secret)
        var matched = false
        for entry in signatures.split(separator: " ", omittingEmptySubsequences: true) {
            guard entry.hasPrefix("v1,"), let candidate = Data(base64Encoded: String(entry.dropFirst(3))) else { continue }
            // Keep comparing after a match so the time does not tell which entry matched.
            if constantTimeEquals(candidate, expected) { matched = true }
        }
        guard matched else { throw .noMatchingSignature }
    }

    private static func mac(id: String, timestamp: String, body: Data, secret: Data) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: secret))
        hmac.update(data: Data("\(id).\(timestamp).".utf8))
        hmac.update(data: body)
        return Array(hmac.finalize())
    }
}
