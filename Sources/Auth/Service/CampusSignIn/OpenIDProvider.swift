public import Foundation
public import GatewayCore
public import HTTPClient
import JWTKit
public import Logging

/// The university's OpenID provider as the gateway sees it: its discovery document and signing
/// keys, cached, and its token endpoint.
///
/// - The discovery document is read from `{issuer}/.well-known/openid-configuration` and read
///   again when it expires (its `Cache-Control: max-age`, kept between a minute and a day; an
///   hour without one). Its `issuer` must be the configured one.
/// - The keys (JWKS) are cached the same way. A token naming a key id the cache doesn't hold
///   makes the provider fetch the keys again, at most once every ``keyRefreshInterval``, so a
///   flood of made-up key ids can't make the gateway hammer the provider, and a rotated key
///   works within that time.
/// - Only RS256, ES256 and EdDSA signatures are accepted: `alg: none` and the HMAC algorithms
///   (which would let anyone holding a public key forge tokens) are refused before any key is
///   looked at. Only public keys of those types are taken from the JWKS.
public actor OpenIDProvider {
    /// The signature algorithms accepted.
    public static let algorithms: Set<String> = ["RS256", "ES256", "EdDSA"]
    /// The least time between two key fetches caused by unknown key ids.
    public static let keyRefreshInterval: TimeInterval = 10
    /// The bounds on how long a discovery document or key set is cached.
    static let cacheBounds: ClosedRange<TimeInterval> = 60...86_400
    static let defaultCacheLifetime: TimeInterval = 3600
    /// The largest discovery document, key set or token response read.
    static let maximumBody = 256 * 1024

    public nonisolated let settings: CampusSignInSettings
    let client: any HTTPClient
    let clock: any GatewayClock
    let logger: Logger

    private var metadataCache: (value: ProviderMetadata, until: Date)?
    private var keys: (collection: JWTKeyCollection, ids: Set<String>, until: Date)?
    private var lastKeyFetch: Date?

    public init(settings: CampusSignInSettings, client: any HTTPClient, clock: any GatewayClock, logger: Logger) {
        self.settings = settings
        self.client = client
        self.clock = clock
        self.logger = logger
    }

    /// Why the provider can't be used, as a start-up error naming the setting; nil when its
    /// discovery document and keys read.
    public func problem() async -> String? {
        do {
            _ = try await metadata()
            _ = try await keySet(refresh: true)
            return nil
        } catch {
            return "campus sign-in (GATEWAY_OIDC_ISSUER \(settings.issuerIdentifier)): \(error)"
        }
    }

    /// The discovery document, from the cache while it lasts.
    public func metadata() async throws -> ProviderMetadata {
        let now = clock.now()
        if let cached = metadataCache, cached.until > now { return cached.value }
        let url = URL(string: settings.issuerIdentifier + "/.well-known/openid-configuration")!
        let (body, lifetime) = try await fetch(url, what: "the discovery document")
        let metadata: ProviderMetadata
        do {
            metadata = try JSONDecoder().decode(ProviderMetadata.self, from: body)
        } catch {
            throw ProviderError.unusable("the discovery document is malformed (\(error))")
        }
        guard metadata.issuer == settings.issuerIdentifier else {
            throw ProviderError.unusable("the discovery document names issuer '\(metadata.issuer)', not '\(settings.issuerIdentifier)'")
        }
        metadataCache = (metadata, now.addingTimeInterval(lifetime))
        return metadata
    }

    /// Verifies a token's signature with the provider's keys and returns its claims, unjudged
    /// (``ClaimCheck`` judges them).
    public func verifySignature(_ token: String) async throws -> ProviderClaims {
        let header = try Self.header(of: token)
        guard let alg = header.alg, Self.algorithms.contains(alg) else {
            throw ProviderError.tokenRefused("signature algorithm \(header.alg ?? "missing") is not accepted")
        }
        var set = try await keySet(refresh: false)
        if !Self.holds(set.ids, kid: header.kid) {
            // An unknown key: perhaps the provider rotated. Fetch again, but not more often than
            // every keyRefreshInterval, whatever the tokens say.
            let now = clock.now()
            if lastKeyFetch.map({ now.timeIntervalSince($0) >= Self.keyRefreshInterval }) ?? true {
                set = try await keySet(refresh: true)
            }
            guard Self.holds(set.ids, kid: header.kid) else { throw ProviderError.tokenRefused("unknown signing key \(header.kid ?? "(none)")") }
        }
        do {
            return try await set.collection.verify(token, as: ProviderClaims.self)
        } catch {
            throw ProviderError.tokenRefused("bad signature (\(error))")
        }
    }

    /// Trades an authorization code for the provider's tokens, with client authentication and
    /// the PKCE verifier; returns the ID token.
    public func exchange(code: String, verifier: String) async throws -> String {
        let metadata = try await metadata()
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", settings.redirectURI), ("code_verifier", verifier),
        ]
        var credentials: BasicCredentials?
        if metadata.postsClientSecret {
            form += [("client_id", settings.clientID), ("client_secret", settings.clientSecret.value)]
        } else {
            // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
            credentials = BasicCredentials(username: Self.formEncode(settings.clientID), password: Self.formEncode(settings.clientSecret.value))
        }
        let body = form.map { "\(Self.formEncode($0.0))=\(Self.formEncode($0.1))" }.joined(separator: "&")
        let request = OutboundRequest(
            method: .post, url: metadata.tokenEndpoint,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: Data(body.utf8), timeout: .seconds(15), basicCredentials: credentials, maxResponseBodySize: Self.maximumBody,
            propagatesTraceContext: true
        )
        let response = try await client.execute(request)
        guard (200..<300).contains(response.status) else {
            let error = (try? JSONDecoder().decode(TokenError.self, from: response.body))?.error ?? "HTTP \(response.status)"
            throw ProviderError.exchangeRefused(error)
        }
        guard let tokens = try? JSONDecoder().decode(TokenResponse.self, from: response.body), let idToken = tokens.idToken else {
            throw ProviderError.exchangeRefused("the token response has no id_token")
        }
        return idToken
    }

    // MARK: Keys

    private func keySet(refresh: Bool) async throws -> (collection: JWTKeyCollection, ids: Set<String>) {
        let now = clock.now()
        if !refresh, let keys, keys.until > now { return (keys.collection, keys.ids) }
        lastKeyFetch = now
        let metadata = try await metadata()
        let (body, lifetime) = try await fetch(metadata.jwksURI, what: "the key set")
        let jwks: JWKS
        do {
            jwks = try JSONDecoder().decode(JWKS.self, from: Self.publicSigningKeys(body))
        } catch {
            throw ProviderError.unusable("the key set is malformed (\(error))")
        }
        let collection = JWTKeyCollection()
        var ids = Set<String>()
        for key in jwks.keys {
            guard let kid = key.keyIdentifier?.string else { continue }
            do {
                try await collection.add(jwk: key)
                ids.insert(kid)
            } catch {
                logger.warning("campus sign-in: a key of the provider's set can't be used", metadata: ["kid": "\(kid)"])
            }
        }
        guard !ids.isEmpty else { throw ProviderError.unusable("the key set holds no usable signing key") }
        keys = (collection, ids, now.addingTimeInterval(lifetime))
        return (collection, ids)
    }

    /// A token without `kid` is accepted only when the provider publishes a single key.
    static func holds(_ ids: Set<String>, kid: String?) -> Bool {
        guard let kid else { return ids.count == 1 }
        return ids.contains(kid)
    }

    /// The JWKS with only public signing keys of the accepted types (RSA, EC P-256, OKP
    /// Ed25519): symmetric (`oct`) and private key material never enter the collection.
    static func publicSigningKeys(_ body: Data) throws -> Data {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any], let keys = object["keys"] as? [[String: Any]] else {
            throw ProviderError.unusable("the key set has no keys array")
        }
        let usable = keys.filter { key in
            guard let type = key["kty"] as? String, ["RSA", "EC", "OKP"].contains(type) else { return false }
            if let use = key["use"] as? String, use != "sig" { return false }
            if key["d"] != nil { return false }
            if let alg = key["alg"] as? String, !algorithms.contains(alg) { return false }
            if type == "EC", key["crv"] as? String != "P-256" { return false }
            if type == "OKP", key["crv"] as? String != "Ed25519" { return false }
            return true
        }
        return try JSONSerialization.data(withJSONObject: ["keys": usable])
    }

    // MARK: HTTP

    private func fetch(_ url: URL, what: String) async throws -> (Data, TimeInterval) {
        let response: OutboundResponse
        do {
            response = try await client.execute(OutboundRequest(
                url: url, headers: ["Accept": "application/json"], timeout: .seconds(10), maxResponseBodySize: Self.maximumBody,
                propagatesTraceContext: true
            ))
        } catch {
            throw ProviderError.unusable("\(what) at \(url.absoluteString) is unreachable (\(error))")
        }
        guard response.status == 200 else { throw ProviderError.unusable("\(what) at \(url.absoluteString) answered HTTP \(response.status)") }
        return (response.body, Self.cacheLifetime(response.headers["Cache-Control"]))
    }

    /// `max-age` of a `Cache-Control` value, within ``cacheBounds``; no-store and no-cache
    /// keep it for the least time.
    static func cacheLifetime(_ header: String?) -> TimeInterval {
        guard let header else { return defaultCacheLifetime }
        let directives = header.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-store") || directives.contains("no-cache") { return cacheBounds.lowerBound }
        for directive in directives where directive.hasPrefix("max-age=") {
            if let seconds = TimeInterval(directive.dropFirst("max-age=".count)) {
                return min(max(seconds, cacheBounds.lowerBound), cacheBounds.upperBound)
            }
        }
        return defaultCacheLifetime
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// The JOSE header's `alg` and `kid`, read without trusting anything else of the token.
    static func header(of token: String) throws -> (alg: String?, kid: String?, typ: String?) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[0]),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ProviderError.tokenRefused("not a signed JWT") }
        return (object["alg"] as? String, object["kid"] as? String, object["typ"] as? String)
    }

    /// The `typ` of a token's JOSE header (nil when absent or unreadable).
    public static func type(of token: String) -> String? { (try? header(of: token))?.typ }

    struct TokenResponse: Decodable {
        let idToken: String?
        enum CodingKeys: String, CodingKey { case idToken = "id_token" }
    }

    struct TokenError: Decodable {
        let error: String
    }
}

/// Why the provider could not be used or its answer was refused. The log names it; a browser
/// learns only the kind (``CampusSignInFailure``).
public enum ProviderError: Error, CustomStringConvertible, Sendable {
    /// The discovery document or the keys can't be read or used.
    case unusable(String)
    /// The token endpoint refused the code.
    case exchangeRefused(String)
    /// A token's signature, algorithm or key is refused.
    case tokenRefused(String)

    public var description: String {
        switch self {
        case .unusable(let reason): reason
        case .exchangeRefused(let reason): "the token endpoint refused the code: \(reason)"
        case .tokenRefused(let reason): reason
        }
    }
}


