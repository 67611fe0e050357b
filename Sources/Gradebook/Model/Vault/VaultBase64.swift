import Foundation
import GatewayCore

/// Base64 for the vault: strict base64url for sealed values, lenient parsing for keys an
/// operator pastes (standard or url-safe alphabet, padding optional).
enum VaultBase64 {
    /// base64url without padding (RFC 4648 §5).
    static func urlEncode(_ bytes: some DataProtocol) -> String { Base64URL.encode(bytes) }

    /// Decodes unpadded base64url, accepting only the canonical encoding (so one byte string
    /// has exactly one text). Nil for anything else.
    static func urlDecodeCanonical(_ text: Substring) -> Data? { Base64URL.decodeCanonical(text) }

    /// Standard base64, padded (the key file's format).
    static func standardEncode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Standard or url-safe base64, with or without padding, surrounding whitespace ignored.
    static func decodeLenient(_ text: String) -> Data? {
        Base64URL.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
