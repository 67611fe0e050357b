import Crypto
public import Foundation
public import GatewayCore

/// A browser's push subscription (`PushSubscription.toJSON()`: `endpoint`, `keys.p256dh`,
/// `keys.auth`), checked before it is stored.
public struct WebPushSubscription: Sendable, Equatable {
    /// Longest endpoint accepted, in UTF-8 bytes.
    public static let maximumEndpointLength = 2048

    /// Where the push service takes messages for this browser.
    public let endpoint: URL
    /// The browser's P-256 public key: 65 bytes, uncompressed, base64url without padding.
    public let p256dh: String
    /// The browser's 16-byte authentication secret, base64url without padding.
    public let auth: String

    /// The address deliveries go to.
    public var address: DeviceAddress { .webPush(endpoint: endpoint, p256dh: p256dh, auth: auth) }

    /// Checks what a browser sent: `endpoint` an `https` URL of at most
    /// ``maximumEndpointLength`` bytes allowed by `policy` (no credentials, no literal
    /// restricted address), `p256dh` a base64url uncompressed P-256 point on the curve, `auth`
    /// base64url of 16 bytes. The keys come back in canonical unpadded base64url.
    ///
    /// - Throws: `InvalidInput` naming the field (`endpoint`, `p256dh` or `auth`).
    public static func validate(
        endpoint: String, p256dh: String, auth: String, policy: PushEndpointPolicy = .strict
    ) throws(InvalidInput) -> WebPushSubscription {
        guard !endpoint.isEmpty, endpoint.utf8.count <= maximumEndpointLength else {
            throw InvalidInput("the endpoint must be a URL of at most \(maximumEndpointLength) characters", field: "endpoint")
        }
        guard let url = URL(string: endpoint), url.scheme != nil else {
            throw InvalidInput("the endpoint is not a URL", field: "endpoint")
        }
        if let refusal = policy.refusal(for: url) {
            throw InvalidInput("the endpoint is not allowed: \(refusal)", field: "endpoint")
        }
        let (p256dh, auth) = try validateKeys(p256dh: p256dh, auth: auth)
        return WebPushSubscription(endpoint: url, p256dh: p256dh, auth: auth)
    }

    /// Checks the subscription's keys alone: `p256dh` a base64url uncompressed P-256 point on
    /// the curve, `auth` base64url of 16 bytes. Returns them in canonical unpadded base64url.
    public static func validateKeys(p256dh: String, auth: String) throws(InvalidInput) -> (p256dh: String, auth: String) {
        guard let key = Base64URL.decode(p256dh), key.count == 65, key.first == 0x04,
              (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil else {
            throw InvalidInput("p256dh must be base64url of an uncompressed P-256 public key (65 bytes)", field: "p256dh")
        }
        guard let secret = Base64URL.decode(auth), secret.count == 16 else {
            throw InvalidInput("auth must be base64url of 16 bytes", field: "auth")
        }
        return (Base64URL.encode(key), Base64URL.encode(secret))
    }
}
