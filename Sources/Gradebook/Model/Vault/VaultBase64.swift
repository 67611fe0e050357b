import Foundation

/// Base64 helpers for the vault: strict base64url for sealed values, lenient parsing for keys
/// an operator pastes (standard or url-safe alphabet, padding optional).
enum VaultBase64 {
    /// base64url without padding (RFC 4648 §5).
    static func urlEncode(_ bytes: some DataProtocol) -> String {
        String(Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .trimmingSuffix("="))
    }

    /// Decodes unpadded base64url, accepting only the canonical encoding (so one byte string
    /// has exactly one text). Nil for anything else.
    static func urlDecodeCanonical(_ text: Substring) -> Data? {
        guard text.utf8.allSatisfy({ isURLSafe($0) }), let data = decode(text) else { return nil }
        return urlEncode(data) == text ? data : nil
    }

    /// Standard base64, padded (the key file's format).
    static func standardEncode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Standard or url-safe base64, with or without padding, surrounding whitespace ignored.
    static func decodeLenient(_ text: String) -> Data? {
        decode(text.trimmingCharacters(in: .whitespacesAndNewlines)[...])
    }

    private static func decode(_ text: Substring) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }

    private static func isURLSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}

private extension String {
    func trimmingSuffix(_ character: Character) -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == character { end = index(before: end) }
        return self[..<end]
    }
}
