public import Foundation

/// base64url (RFC 4648 §5) without padding: the text of every token, cursor, entity tag,
/// PKCE challenge, JWS part and Web Push key the gateway writes.
///
/// One implementation, because the encoder sits on the request path (every JSON answer's
/// `ETag`): it maps the standard alphabet's bytes instead of bridging through
/// `replacingOccurrences`, which cost 12 % of `/healthz`'s CPU.
public enum Base64URL {
    /// base64url without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        let standard = Data(bytes).base64EncodedData()
        var text = [UInt8]()
        text.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes base64url with or without padding. The standard alphabet's `+` and `/` are
    /// accepted too, as some clients send them; anything else (whitespace included), or a
    /// length no encoding has, is `nil`.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var standard = [UInt8]()
        standard.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="):
                padding += 1
                continue
            case _ where padding > 0:
                return nil  // data after padding
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"): standard.append(byte)
            case _ where isAlphanumeric(byte): standard.append(byte)
            default: return nil
            }
        }
        guard padding <= 2, standard.count % 4 != 1 else { return nil }
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4))
        return Data(base64Encoded: Data(standard))
    }

    /// Decodes only the canonical text: the url-safe alphabet, no padding, and exactly the
    /// text ``encode(_:)`` writes for the bytes (so one byte string has one text). The empty
    /// text is zero bytes.
    public static func decodeCanonical(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy(isURLSafe), let data = decode(text), encode(data) == text else { return nil }
        return data
    }

    /// Whether `text` is non-empty and uses only the base64url alphabet (`A-Z a-z 0-9 - _`).
    public static func isURLSafe(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isURLSafe)
    }

    private static func isURLSafe(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
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
