import Foundation
import GatewayCore
import Testing

/// ``Base64URL`` is RFC 4648 §5 without padding: the text of tokens, cursors, entity tags and
/// Web Push keys. It replaced six hand-written copies, so it must answer what they answered.
@Suite("base64url")
struct Base64URLTests {
    /// RFC 4648 §10's test vectors, unpadded, and the two characters that differ from base64.
    @Test func writesTheRFCsVectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Data(plain.utf8))
        }
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("+/8=") == Data([0xFB, 0xFF]), "the standard alphabet, padded, as some clients send keys")
    }

    /// Every length from 0 to 70 bytes, random contents: the same text as Foundation's base64
    /// with the alphabet swapped and the padding dropped, and back again in every accepted form.
    @Test func agreesWithFoundationOnRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            for _ in 0..<20 {
                let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let standard = bytes.base64EncodedString()
                let expected = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                let text = Base64URL.encode(bytes)
                #expect(text == expected, "\(Array(bytes))")
                #expect(Base64URL.decode(text) == bytes)
                #expect(Base64URL.decode(standard) == bytes, "padded standard base64 of \(Array(bytes))")
                #expect(Base64URL.decodeCanonical(text) == bytes)
                #expect(length == 0 || Base64URL.isURLSafe(text))
            }
        }
    }

    /// What no encoder writes is refused, never guessed at.
    @Test func refusesWhatIsNotBase64URL() {
        for text in ["a", "Zm9vY", "Zm 9v", "Zm9v\n", "Zg=a", "Zg===", "Zm9v*", "é"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
        // Canonical: no padding, no standard alphabet, no stray low bits ("Zh" decodes to "f"
        // in lenient decoders, but only "Zg" is f's text).
        for text in ["Zg==", "+/8", "Zh"] {
            #expect(Base64URL.decodeCanonical(text) == nil, "\(text)")
        }
        #expect(Base64URL.decodeCanonical("") == Data(), "zero bytes' text")
    }
}
