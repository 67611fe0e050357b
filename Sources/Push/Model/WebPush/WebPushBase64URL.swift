public import Foundation

/// base64url (RFC 4648 §5), the encoding of every Web Push key: browsers hand out `p256dh` and
/// `auth` in it, VAPID puts the public key and the JWT in it.
public enum WebPushBase64URL {
    /// base64url without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url with or without padding (the standard alphabet's `+` and `/` are
    /// accepted too, as some clients send them); `nil` for anything else, including whitespace.
    public static func decode(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.utf8.allSatisfy(isStandardAlphabet), standard.utf8.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    /// Whether `text` is non-empty and uses only the base64url alphabet (`A-Z a-z 0-9 - _`).
    public static func isURLSafe(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    private static func isStandardAlphabet(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            false
        }
    }
}
