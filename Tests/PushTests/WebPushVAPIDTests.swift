import GatewayCore
import Crypto
import Foundation
import Push
import Testing

/// RFC 8292 VAPID: the keys browsers subscribe with and the ES256 JWT every request carries,
/// verified here with swift-crypto and independently with Python's `cryptography`.
@Suite("Web Push VAPID (RFC 8292)")
struct WebPushVAPIDTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let endpoint = URL(string: "https://push.example.net:8443/wpush/v2/gAAAA-token?x=1")!

    /// Splits `vapid t=<jwt>, k=<key>` into the JWT's parts and the key.
    static func parse(_ authorization: String) throws -> (header: Data, claims: Data, signingInput: String, signature: Data, key: Data) {
        let match = try #require(authorization.wholeMatch(of: /vapid t=([A-Za-z0-9_\-]+)\.([A-Za-z0-9_\-]+)\.([A-Za-z0-9_\-]+), k=([A-Za-z0-9_\-]+)/))
        return (
            try #require(Base64URL.decode(String(match.1))), try #require(Base64URL.decode(String(match.2))),
            "\(match.1).\(match.2)", try #require(Base64URL.decode(String(match.3))), try #require(Base64URL.decode(String(match.4)))
        )
    }

    @Test func theTokenIsAnES256JWTForTheEndpointsOrigin() throws {
        let keys = VAPIDKeys.generate()
        let signer = try VAPIDSigner(keys: keys, subject: "mailto:ops@campus.example.edu")
        let authorization = try signer.authorization(for: Self.endpoint, now: Self.now)
        let parts = try Self.parse(authorization)
        #expect(String(decoding: parts.header, as: UTF8.self) == #"{"typ":"JWT","alg":"ES256"}"#)
        let claims = try JSONDecoder().decode(ReceivedRequest.Claims.self, from: parts.claims)
        #expect(claims == .init(aud: "https://push.example.net:8443", exp: 1_790_000_000 + 12 * 3600, sub: "mailto:ops@campus.example.edu"))
        #expect(parts.key == keys.privateKey.publicKey.x963Representation)
        #expect(Base64URL.encode(parts.key) == keys.publicKeyBase64URL)
        #expect(parts.signature.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: parts.signature)
        let publicKey = try P256.Signing.PublicKey(x963Representation: parts.key)
        #expect(publicKey.isValidSignature(signature, for: Data(parts.signingInput.utf8)))
        #expect(!publicKey.isValidSignature(signature, for: Data((parts.signingInput + "x").utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: Data(parts.signingInput.utf8)))
    }

    @Test func pythonCryptographyVerifiesTheToken() async throws {
        let python = try await PythonFixtures.python()
        let signer = try VAPIDSigner(keys: .generate(), subject: "https://campus.example.edu/contact")
        let authorization = try signer.authorization(for: Self.endpoint, now: Self.now)
        // The body is irrelevant here: only the VAPID half of the check is read.
        let request = try JSONSerialization.data(withJSONObject: [
            "body": "", "ua_private": "", "auth": "", "authorization": authorization,
            "audience": "https://push.example.net:8443", "now": 1_790_000_000,
        ])
        let result = try await PythonFixtures.run(python, [PythonFixtures.fixtures.appendingPathComponent("webpush_check.py").path], input: request)
        try #require(result.status == 0, "webpush_check.py: \(result.error)")
        let checked = try JSONDecoder().decode(ReceivedRequest.self, from: result.output)
        #expect(checked.vapid_problems == [])
        #expect(checked.claims?.sub == "https://campus.example.edu/contact")
    }

    @Test func audiencesAreOrigins() {
        let cases: [(String, String?)] = [
            ("https://fcm.googleapis.com/fcm/send/abc", "https://fcm.googleapis.com"),
            ("https://Updates.Push.Services.Mozilla.com:443/wpush/v2/x", "https://updates.push.services.mozilla.com"),
            ("https://web.push.apple.com:8443/QGuQ", "https://web.push.apple.com:8443"),
            ("http://127.0.0.1:8080/webpush/201", "http://127.0.0.1:8080"),
            ("https://[2001:db8::1]/x", "https://[2001:db8::1]"),
            ("ftp://example.com/x", nil),
        ]
        for (endpoint, audience) in cases {
            #expect(VAPIDSigner.audience(of: URL(string: endpoint)!) == audience, "\(endpoint)")
        }
    }

    @Test func keysLoadFromBase64URLOrPEMAndNeverShowThePrivateHalf() throws {
        let keys = VAPIDKeys.generate()
        let reloaded = try VAPIDKeys(privateKeyBase64URL: keys.privateKeyBase64URL)
        #expect(reloaded.publicKeyBase64URL == keys.publicKeyBase64URL)
        #expect(try VAPIDKeys(privateKeyBase64URL: keys.privateKeyBase64URL + "=\n").publicKeyBase64URL == keys.publicKeyBase64URL)
        let pem = try VAPIDKeys(privateKeyBase64URL: keys.privateKey.pemRepresentation)
        #expect(pem.publicKeyBase64URL == keys.publicKeyBase64URL)
        #expect(try Base64URL.decode(keys.publicKeyBase64URL)?.count == 65)

        #expect(throws: VAPIDError.invalidPrivateKey(source: "GATEWAY_VAPID_PRIVATE_KEY")) {
            try VAPIDKeys(privateKeyBase64URL: "not-a-key", source: "GATEWAY_VAPID_PRIVATE_KEY")
        }
        #expect(throws: VAPIDError.invalidPrivateKey(source: "the VAPID private key")) {
            try VAPIDKeys(privateKeyBase64URL: Base64URL.encode(Data(count: 31)))
        }

        let secret = keys.privateKeyBase64URL
        for text in [keys.description, keys.debugDescription, String(describing: keys), "\(VAPIDError.invalidPrivateKey(source: "X"))"] {
            #expect(!text.contains(secret))
        }
        #expect(keys.description.contains(keys.publicKeyBase64URL))
    }

    @Test func subjectsAreMailtoOrHTTPS() {
        let keys = VAPIDKeys.generate()
        for good in ["mailto:ops@campus.example.edu", "https://campus.example.edu", "https://campus.example.edu/push-contact"] {
            #expect((try? VAPIDSigner(keys: keys, subject: good)) != nil, "\(good)")
        }
        for bad in ["", "ops@campus.example.edu", "mailto:", "mailto:@x", "http://campus.example.edu", "https://", "mailto:a b@x", "mailto:\"x\"@y"] {
            #expect(throws: VAPIDError.invalidSubject, "\(bad)") { try VAPIDSigner(keys: keys, subject: bad) }
        }
    }
}
