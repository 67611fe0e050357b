import Auth
import Crypto
import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import Synchronization

/// A stand-in OpenID provider on 127.0.0.1, written from OpenID Connect Core 1.0, Discovery 1.0
/// and RFC 7636: discovery, JWKS, authorize (it signs the person the test chose in at once) and
/// token (it checks the client's Basic credentials, the redirect URI and the PKCE verifier). It
/// signs with ES256 and can mint bad ID tokens on purpose (``Minting``), rotate its key, and
/// count how often the gateway fetched its keys.
final class OpenIDStandIn: Sendable {
    static let clientID = "campus-gateway"
    static let clientSecret = "s3cret-for-tests"

    /// The person the next authorization signs in.
    struct Person: Sendable {
        var subject: String
        var preferredUsername: String? = nil
        var email: String? = nil
        var emailVerified = true
        var name: String? = nil
        var groups: [String] = []
    }

    /// How the ID token of the next code is minted.
    enum Minting: Sendable {
        case good, wrongNonce, wrongAudience, expired, algNone, unknownKey, otherIssuer, hmac
    }

    struct Code: Sendable {
        let person: Person
        let redirectURI: String
        let challenge: String
        let nonce: String
        let minting: Minting
    }

    struct State: Sendable {
        var person = Person(subject: "s-1001")
        var minting = Minting.good
        var refuse = false
        var codes: [String: Code] = [:]
        var keyID = "k1"
        var keys: [String: ES256PrivateKey] = ["k1": ES256PrivateKey()]
        var jwksFetches = 0
        var tokenRequests = 0
    }

    let state = Mutex(State())
    /// The clock tokens are minted by: the gateway's (a test's manual clock), so a slow
    /// machine can't make a token look issued in the future.
    let clock = Mutex<(any GatewayClock)?>(nil)
    let port: Int
    var issuer: String { "http://127.0.0.1:\(port)" }

    init(port: Int) { self.port = port }

    /// Runs a stand-in for the duration of `body`.
    static func with(_ body: @Sendable @escaping (OpenIDStandIn) async throws -> Void) async throws {
        let holder = Mutex<OpenIDStandIn?>(nil)
        let router = Router()
        router.get(".well-known/openid-configuration") { _, _ in try holder.withLock { $0! }.discovery() }
        router.get("jwks") { _, _ in try holder.withLock { $0! }.jwks() }
        router.get("authorize") { request, _ in try holder.withLock { $0! }.authorize(request) }
        router.post("token") { request, _ in try await holder.withLock { $0! }.token(request) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let standIn = OpenIDStandIn(port: client.port!)
            holder.withLock { $0 = standIn }
            try await body(standIn)
        }
    }

    // MARK: Test controls

    /// Mints tokens by `clock` from now on.
    func follow(_ clock: any GatewayClock) { self.clock.withLock { $0 = clock } }

    var now: Date { clock.withLock { $0?.now() } ?? Date() }

    func signIn(_ person: Person, minting: Minting = .good) {
        state.withLock { $0.person = person; $0.minting = minting; $0.refuse = false }
    }

    func refuseNext() { state.withLock { $0.refuse = true } }

    /// Publishes a new key and signs with it; the old one leaves the key set.
    func rotateKey() {
        state.withLock { state in
            let next = "k\(state.keys.count + 1)-\(Int.random(in: 1000...9999))"
            state.keys = [next: ES256PrivateKey()]
            state.keyID = next
        }
    }

    var jwksFetches: Int { state.withLock { $0.jwksFetches } }
    var tokenRequests: Int { state.withLock { $0.tokenRequests } }

    /// An access token as a mobile app would get it from this provider: typed `at+jwt`
    /// (RFC 9068 §2.1) unless `type` says otherwise (nil: no `typ` at all).
    func accessToken(
        subject: String, audience: String = OpenIDStandIn.clientID, expiresIn: TimeInterval = 600, groups: [String]? = nil,
        minting: Minting = .good, kid: String? = nil, type: String? = "at+jwt", extra: [String: JSONValue] = [:]
    ) async throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(audience),
            "iat": .int(Int64(now.timeIntervalSince1970)), "exp": .int(Int64(now.addingTimeInterval(expiresIn).timeIntervalSince1970)),
            "scope": .string("openid"),
        ]
        if let groups { claims["groups"] = .array(groups.map(JSONValue.string)) }
        claims.merge(extra) { _, new in new }
        return try await mint(claims, minting: minting, kid: kid, type: type)
    }

    /// An ID token as the code exchange hands it out, presented where an access token belongs.
    func idToken(subject: String, nonce: String = "n-0123456789") async throws -> String {
        let claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(Self.clientID), "azp": .string(Self.clientID),
            "iat": .int(Int64(now.timeIntervalSince1970)), "exp": .int(Int64(now.addingTimeInterval(600).timeIntervalSince1970)),
            "nonce": .string(nonce),
        ]
        return try await mint(claims, minting: .good, type: "JWT")
    }

    // MARK: Endpoints

    func discovery() throws -> Response {
        try json([
            "issuer": issuer, "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
            "jwks_uri": "\(issuer)/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"], "code_challenge_methods_supported": ["S256"],
        ], cacheControl: "public, max-age=300")
    }

    func jwks() throws -> Response {
        let keys = state.withLock { state -> [[String: String]] in
            state.jwksFetches += 1
            return state.keys.map { kid, key in
                let (x, y) = key.parameters!
                return ["kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "use": "sig", "alg": "ES256"]
            }
        }
        return try json(["keys": keys], cacheControl: "public, max-age=300")
    }

    func authorize(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        guard query["response_type"] == "code", query["client_id"].map(String.init) == Self.clientID,
            query["code_challenge_method"] == "S256", let challenge = query["code_challenge"].map(String.init),
            let redirect = query["redirect_uri"].map(String.init), let state = query["state"].map(String.init),
            let nonce = query["nonce"].map(String.init), let scope = query["scope"], scope.split(separator: " ").contains("openid")
        else { return Response(status: .badRequest) }
        let (refuse, code) = self.state.withLock { current -> (Bool, String) in
            let code = UUID().uuidString
            current.codes[code] = Code(person: current.person, redirectURI: redirect, challenge: challenge, nonce: nonce, minting: current.minting)
            return (current.refuse, code)
        }
        let target = refuse
            ? "\(redirect)?error=access_denied&state=\(state)"
            : "\(redirect)?code=\(code)&state=\(state)"
        return Response(status: .found, headers: [.location: target])
    }

    func token(_ request: Request) async throws -> Response {
        state.withLock { $0.tokenRequests += 1 }
        guard let header = request.headers[.authorization], let (id, secret) = TokenAuthenticator.basic(header),
            id == Self.clientID, secret == Self.clientSecret
        else { return try json(["error": "invalid_client"], status: .unauthorized) }
        let body = try await request.body.collect(upTo: 65536)
        var form: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        // A code works once.
        guard form["grant_type"] == "authorization_code", let codeValue = form["code"],
            let code = state.withLock({ $0.codes.removeValue(forKey: codeValue) }),
            form["redirect_uri"] == code.redirectURI, let verifier = form["code_verifier"],
            SignInSecrets.challenge(forVerifier: verifier) == code.challenge
        else { return try json(["error": "invalid_grant"], status: .badRequest) }
        let now = self.now
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(code.person.subject), "aud": .string(Self.clientID),
            "iat": .int(Int64(now.timeIntervalSince1970)), "exp": .int(Int64(now.addingTimeInterval(300).timeIntervalSince1970)),
            "nonce": .string(code.nonce), "email_verified": .bool(code.person.emailVerified),
            "groups": .array(code.person.groups.map(JSONValue.string)),
        ]
        if let value = code.person.preferredUsername { claims["preferred_username"] = .string(value) }
        if let value = code.person.email { claims["email"] = .string(value) }
        if let value = code.person.name { claims["name"] = .string(value) }
        switch code.minting {
        case .wrongNonce: claims["nonce"] = .string("not-the-nonce")
        case .wrongAudience: claims["aud"] = .string("another-client")
        case .expired: claims["exp"] = .int(Int64(now.addingTimeInterval(-600).timeIntervalSince1970))
        case .otherIssuer: claims["iss"] = .string("https://idp.elsewhere.example")
        default: break
        }
        let idToken = try await mint(claims, minting: code.minting)
        return try json(["access_token": "opaque-\(UUID().uuidString)", "token_type": "Bearer", "expires_in": 300, "id_token": idToken])
    }

    // MARK: Minting

    func mint(_ claims: [String: JSONValue], minting: Minting, kid requested: String? = nil, type: String? = "JWT") async throws -> String {
        switch minting {
        case .algNone:
            return Self.unsigned(header: ["alg": "none", "typ": "JWT"], claims: claims) + "."
        case .hmac:
            // Signed with HS256 under the text of the provider's public key: the classic confusion.
            let key = state.withLock { $0.keys.values.first!.parameters!.x }
            let input = Self.unsigned(header: ["alg": "HS256", "typ": "JWT", "kid": state.withLock { $0.keyID }], claims: claims)
            let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(key.utf8)))
            return input + "." + SignInSecrets.base64URL(Data(mac))
        case .unknownKey:
            let stranger = JWTKeyCollection()
            await stranger.add(ecdsa: ES256PrivateKey(), kid: "not-published")
            return try await stranger.sign(ProviderClaims(claims), kid: "not-published")
        default:
            let (kid, key) = state.withLock { state in
                let kid = requested ?? state.keyID
                return (kid, state.keys[kid] ?? ES256PrivateKey())
            }
            let keys = JWTKeyCollection()
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
            var header = JWTHeader()
            header.typ = type
            return try await keys.sign(ProviderClaims(claims), kid: JWKIdentifier(string: kid), header: header)
        }
    }

    static func unsigned(header: [String: String], claims: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        let head = SignInSecrets.base64URL(try! encoder.encode(header))
        let body = SignInSecrets.base64URL(try! encoder.encode(claims))
        return head + "." + body
    }

    func json(_ object: Any, status: HTTPResponse.Status = .ok, cacheControl: String? = nil) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        let data = try JSONSerialization.data(withJSONObject: object)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
