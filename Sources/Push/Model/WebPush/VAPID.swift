import GatewayCore
public import Crypto
public import Foundation

/// Why VAPID keys or a VAPID token could not be made. Names sources, never key material.
public enum VAPIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The private key (from `source`, e.g. an environment variable's name) is neither a
    /// base64url 32-byte P-256 scalar nor a PEM P-256 private key.
    case invalidPrivateKey(source: String)
    /// The contact is not a `mailto:` address or an `https:` URL.
    case invalidSubject
    /// The endpoint has no origin (scheme and host) to put in `aud`.
    case invalidAudience
    /// The token could not be encoded or signed.
    case signingFailed

    public var description: String {
        switch self {
        case .invalidPrivateKey(let source):
            "\(source) is not a VAPID private key (base64url of a 32-byte P-256 scalar, or a PEM P-256 key)"
        case .invalidSubject: "the VAPID subject must be a mailto: address or an https: URL"
        case .invalidAudience: "the push endpoint has no origin for the VAPID audience"
        case .signingFailed: "the VAPID token could not be signed"
        }
    }
}

/// The application server's VAPID key pair (RFC 8292): an ECDSA P-256 key. Browsers subscribe
/// with ``publicKeyBase64URL`` as `applicationServerKey`, and every subscription is bound to it,
/// so the key must stay the same across restarts: keep the private key in configuration.
///
/// `description` shows only the public key.
public struct VAPIDKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The signing key. Never log it.
    public let privateKey: P256.Signing.PrivateKey

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Parses a private key: base64url (padding optional) of the 32-byte scalar, the format
    /// of `web-push generate-vapid-keys` and of ``privateKeyBase64URL``, or a PEM P-256 key
    /// (`openssl ecparam -name prime256v1 -genkey -noout`). `source` names where it came from
    /// in the error.
    public init(privateKeyBase64URL text: String, source: String = "the VAPID private key") throws(VAPIDError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("-----BEGIN"), let key = try? P256.Signing.PrivateKey(pemRepresentation: trimmed) {
            self.init(privateKey: key)
        } else if let raw = Base64URL.decode(trimmed), raw.count == 32,
                  let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) {
            self.init(privateKey: key)
        } else {
            throw .invalidPrivateKey(source: source)
        }
    }

    /// A new random key pair. Persist ``privateKeyBase64URL`` or browsers must subscribe again.
    public static func generate() -> VAPIDKeys {
        VAPIDKeys(privateKey: P256.Signing.PrivateKey())
    }

    /// The public key, uncompressed (65 bytes), base64url: what browsers pass to
    /// `pushManager.subscribe({applicationServerKey})` and what `GET /v1/push/vapid-public-key`
    /// answers.
    public var publicKeyBase64URL: String { Base64URL.encode(privateKey.publicKey.x963Representation) }

    /// The private scalar (32 bytes), base64url: to store once after ``generate()``. Secret.
    public var privateKeyBase64URL: String { Base64URL.encode(privateKey.rawRepresentation) }

    public var description: String { "VAPIDKeys(public: \(publicKeyBase64URL))" }
    public var debugDescription: String { description }
}

/// Signs RFC 8292 VAPID tokens: an ES256 JWT `{"aud": <endpoint origin>, "exp": now + 12 h,
/// "sub": <contact>}` sent as `Authorization: vapid t=<jwt>, k=<public key>`.
public struct VAPIDSigner: Sendable {
    /// How long a token is valid (RFC 8292 allows at most 24 hours).
    public static let tokenLifetime: TimeInterval = 12 * 60 * 60

    public let keys: VAPIDKeys
    /// The operator's contact, `mailto:` or `https:`, which push services use to reach them.
    public let subject: String

    /// - Throws: ``VAPIDError/invalidSubject`` unless `subject` is `mailto:<address>` or an
    ///   `https:` URL with a host.
    public init(keys: VAPIDKeys, subject: String) throws(VAPIDError) {
        guard Self.isValidSubject(subject) else { throw .invalidSubject }
        self.keys = keys
        self.subject = subject
    }

    /// The `Authorization` header value for a request to `endpoint`.
    public func authorization(for endpoint: URL, now: Date) throws(VAPIDError) -> String {
        guard let audience = Self.audience(of: endpoint) else { throw .invalidAudience }
        return "vapid t=\(try token(audience: audience, now: now)), k=\(keys.publicKeyBase64URL)"
    }

    /// The signed JWT for `audience`, expiring ``tokenLifetime`` after `now`.
    public func token(audience: String, now: Date) throws(VAPIDError) -> String {
        struct Claims: Encodable { var aud: String, exp: Int64, sub: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = Claims(aud: audience, exp: Int64((now.timeIntervalSince1970 + Self.tokenLifetime).rounded(.down)), sub: subject)
        guard let claimsJSON = try? encoder.encode(claims) else { throw .signingFailed }
        let signingInput = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(claimsJSON)
        guard let signature = try? keys.privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation else {
            throw .signingFailed
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The origin of `endpoint`, `scheme://host[:port]` (the port only when not the scheme's
    /// default), lowercased: the JWT's `aud`.
    public static func audience(of endpoint: URL) -> String? {
        guard let components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              var host = components.host?.lowercased(), !host.isEmpty else { return nil }
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        var origin = "\(scheme)://\(host)"
        if let port = components.port, port != (scheme == "https" ? 443 : 80) { origin += ":\(port)" }
        return origin
    }

    static func isValidSubject(_ subject: String) -> Bool {
        guard subject.utf8.count <= 512, subject.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }) else {
            return false
        }
        if subject.hasPrefix("mailto:") {
            let address = subject.dropFirst("mailto:".count)
            return address.contains("@") && !address.hasPrefix("@") && !address.hasSuffix("@")
        }
        guard subject.hasPrefix("https:"), let url = URLComponents(string: subject), let host = url.host else { return false }
        return !host.isEmpty
    }
}
