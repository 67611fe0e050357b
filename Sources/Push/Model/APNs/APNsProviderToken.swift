import GatewayCore
import Crypto
public import Foundation
import Synchronization

/// The APNs provider authentication token: an ES256-signed JWT made from the team's .p8 key.
///
/// APNs wants the same token reused for at least 20 minutes (refreshing more often answers
/// `429 TooManyProviderTokenUpdates`) and refuses one older than an hour
/// (`403 ExpiredProviderToken`). One token is cached and replaced once it is
/// ``refreshInterval`` old (40 minutes by default, always within 20 to 55 minutes).
///
/// The JWT header is `{"alg":"ES256","kid":keyID}` and the claims `{"iss":teamID,"iat":seconds}`.
/// Neither the key nor the token appears in any description or log.
public final class APNsProviderToken: Sendable {
    /// How long one token is reused by default.
    public static let defaultRefreshInterval: TimeInterval = 40 * 60
    /// The range ``refreshInterval`` is clamped into.
    public static let allowedRefreshIntervals: ClosedRange<TimeInterval> = (20 * 60)...(55 * 60)

    /// The Apple developer team id (the `iss` claim).
    public let teamID: String
    /// The id of the .p8 key (the `kid` header).
    public let keyID: String
    /// How long one token is reused.
    public let refreshInterval: TimeInterval

    private let key: P256.Signing.PrivateKey
    private let now: @Sendable () -> Date
    private let cached = Mutex<Cached?>(nil)

    private struct Cached {
        let jwt: String
        let issuedAt: Date
    }

    /// Reads the key from the PEM text of a .p8 file (`-----BEGIN PRIVATE KEY-----`, PKCS#8);
    /// reading the file is the caller's (``APNsProviderToken/init(p8File:teamID:keyID:refreshInterval:now:)``
    /// in `Service/`), so this type does no I/O.
    /// - Parameters:
    ///   - now: The time, from the caller's clock (the gateway's `GatewayClock`; a test's moves).
    public init(
        p8PEM: String, teamID: String, keyID: String, refreshInterval: TimeInterval = defaultRefreshInterval,
        now: @escaping @Sendable () -> Date
    ) throws(APNsError) {
        guard Self.isTenAlphanumerics(teamID) else { throw .invalidTeamID }
        guard Self.isTenAlphanumerics(keyID) else { throw .invalidKeyID }
        do {
            self.key = try P256.Signing.PrivateKey(pemRepresentation: p8PEM)
        } catch {
            // The underlying error is not included: it could quote parts of the key.
            throw .invalidSigningKey(reason: "not a PEM PKCS#8 P-256 private key")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.refreshInterval = min(max(refreshInterval, Self.allowedRefreshIntervals.lowerBound), Self.allowedRefreshIntervals.upperBound)
        self.now = now
    }

    /// The public half of the key, DER (SubjectPublicKeyInfo); what APNs (or a stand-in) verifies with.
    public var publicKeyDER: Data { key.publicKey.derRepresentation }

    /// The current JWT (for `authorization: bearer …`): the cached one, or a new one when the
    /// cached one is ``refreshInterval`` old or the clock went back more than a minute.
    public func current() -> String {
        let now = now()
        return cached.withLock { cached in
            if let token = cached {
                let age = now.timeIntervalSince(token.issuedAt)
                if age < refreshInterval && age > -60 { return token.jwt }
            }
            let token = Cached(jwt: sign(issuedAt: now), issuedAt: now)
            cached = token
            return token.jwt
        }
    }

    /// When the cached token was issued, if there is one.
    public var issuedAt: Date? { cached.withLock { $0?.issuedAt } }

    /// Drops the cached token if it is still `jwt` (APNs answered `ExpiredProviderToken` for it),
    /// so the next ``current()`` signs a new one. Concurrent failures of one token refresh it once.
    public func invalidate(_ jwt: String) {
        cached.withLock { cached in
            if cached?.jwt == jwt { cached = nil }
        }
    }

    /// Signs `base64url(header).base64url(claims)` with ES256 (P-256, SHA-256, raw r‖s).
    private func sign(issuedAt: Date) -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))}"#
        let signingInput = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        // Signing with a valid P-256 key does not fail in practice; if it ever did, an unsigned
        // token would only be refused by APNs (InvalidProviderToken), never sent as valid.
        let signature = (try? key.signature(for: Data(signingInput.utf8)).rawRepresentation) ?? Data()
        return signingInput + "." + Self.base64URL(signature)
    }

    /// Base64url without padding (RFC 7515).
    static func base64URL(_ data: Data) -> String { Base64URL.encode(data) }

    private static func isTenAlphanumerics(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
    }
}
