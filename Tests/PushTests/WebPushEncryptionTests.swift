import GatewayCore
import Crypto
import Foundation
import Push
import Testing

/// RFC 8291 message encryption, byte for byte against the RFC's own example, and read back by
/// an independent implementation (Python's http_ece).
@Suite("Web Push encryption (RFC 8291)")
struct WebPushEncryptionTests {
    /// RFC 8291 §5 and Appendix A.
    enum Example {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let applicationServerPrivateKey = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let applicationServerPublicKey = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        static let userAgentPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let userAgentPublicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let message = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    static func bytes(_ base64URL: String) throws -> Data {
        try #require(Base64URL.decode(base64URL))
    }

    @Test func theRFCExampleIsReproducedExactly() throws {
        let ephemeral = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Example.applicationServerPrivateKey))
        #expect(Base64URL.encode(ephemeral.publicKey.x963Representation) == Example.applicationServerPublicKey)
        let message = try WebPushEncryption.encrypt(
            Data(Example.plaintext.utf8), userAgentPublicKey: Self.bytes(Example.userAgentPublicKey),
            authSecret: Self.bytes(Example.authSecret), ephemeralKey: ephemeral, salt: Self.bytes(Example.salt)
        )
        #expect(message == (try Self.bytes(Example.message)))
        #expect(Base64URL.encode(message) == Example.message)
        // The header: salt, rs = 4096, idlen = 65, the application server's public key.
        #expect(Array(message[16..<21]) == [0x00, 0x00, 0x10, 0x00, 65])
        #expect(message[21..<86] == (try Self.bytes(Example.applicationServerPublicKey)))
    }

    @Test func theRFCExampleDecrypts() throws {
        let userAgent = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(Example.userAgentPrivateKey))
        let plaintext = try WebPushEncryption.decrypt(
            Self.bytes(Example.message), userAgentPrivateKey: userAgent, authSecret: Self.bytes(Example.authSecret)
        )
        #expect(String(decoding: plaintext, as: UTF8.self) == Example.plaintext)
    }

    @Test func everyMessageHasAFreshKeyAndSalt() throws {
        let userAgent = P256.KeyAgreement.PrivateKey()
        let auth = Data(repeating: 7, count: 16)
        let first = try WebPushEncryption.encrypt(Data("hello".utf8), userAgentPublicKey: userAgent.publicKey.x963Representation, authSecret: auth)
        let second = try WebPushEncryption.encrypt(Data("hello".utf8), userAgentPublicKey: userAgent.publicKey.x963Representation, authSecret: auth)
        #expect(first.prefix(16) != second.prefix(16))
        #expect(first[21..<86] != second[21..<86])
        for message in [first, second] {
            #expect(try WebPushEncryption.decrypt(message, userAgentPrivateKey: userAgent, authSecret: auth) == Data("hello".utf8))
        }
        var tampered = first
        tampered[tampered.count - 1] ^= 1
        #expect(throws: WebPushEncryptionError.malformedMessage) {
            try WebPushEncryption.decrypt(tampered, userAgentPrivateKey: userAgent, authSecret: auth)
        }
    }

    @Test func badKeysAndOversizedPayloadsAreRefused() throws {
        let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        let auth = Data(repeating: 1, count: 16)
        #expect(throws: WebPushEncryptionError.invalidAuthSecret) {
            try WebPushEncryption.encrypt(Data(), userAgentPublicKey: key, authSecret: Data(count: 15))
        }
        var offCurve = key
        offCurve[64] ^= 1
        for bad in [Data(count: 65), key.dropFirst(), P256.KeyAgreement.PrivateKey().publicKey.compressedRepresentation, offCurve] {
            #expect(throws: WebPushEncryptionError.invalidUserAgentKey) {
                try WebPushEncryption.encrypt(Data(), userAgentPublicKey: Data(bad), authSecret: auth)
            }
        }
        let limit = WebPushEncryption.maximumPlaintextSize
        #expect(try WebPushEncryption.encrypt(Data(count: limit), userAgentPublicKey: key, authSecret: auth).count == 4096)
        #expect(throws: WebPushEncryptionError.payloadTooLarge(size: limit + 1, limit: limit)) {
            try WebPushEncryption.encrypt(Data(count: limit + 1), userAgentPublicKey: key, authSecret: auth)
        }
    }

    /// What we encrypt, Python's http_ece decrypts with the subscription's private key.
    @Test func httpECEDecryptsWhatWeEncrypt() async throws {
        let python = try await PythonFixtures.python()
        let userAgent = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { UInt8($0 * 13 % 256) })
        for plaintext in [#"{"title":"Seat open","body":"CS 101 has a seat"}"#, "", String(repeating: "é", count: 1900)] {
            let message = try WebPushEncryption.encrypt(
                Data(plaintext.utf8), userAgentPublicKey: userAgent.publicKey.x963Representation, authSecret: auth
            )
            let request = try JSONSerialization.data(withJSONObject: [
                "body": Base64URL.encode(message), "ua_private": Base64URL.encode(userAgent.rawRepresentation),
                "auth": Base64URL.encode(auth),
            ])
            let result = try await PythonFixtures.run(python, [PythonFixtures.fixtures.appendingPathComponent("webpush_check.py").path], input: request)
            try #require(result.status == 0, "webpush_check.py: \(result.error)")
            let decoded = try JSONDecoder().decode(ReceivedRequest.self, from: result.output)
            #expect(decoded.decrypt_error == nil)
            #expect(decoded.plaintext == plaintext)
        }
    }

    @Test func base64URLIsUnpaddedAndDecodingIsLenient() throws {
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("-_8=") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("+/8=") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("a b") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.isURLSafe("seat-open_12") && !Base64URL.isURLSafe("seat.open") && !Base64URL.isURLSafe(""))
    }
}
