public import Foundation

/// Rewrites the `url` of file objects (`picture`, `feedback`, `student_work`) in a Cal Poly
/// record's raw JSON, leaving every other byte as the upstream wrote it: the compatibility
/// route answers the upstream's bytes, with file links pointing at the gateway.
///
/// It scans the JSON's tokens; each string value of a `"url"` key is decoded and handed to
/// `link`, and replaced by the JSON string of what `link` returns (nil keeps it). A body that is
/// not JSON comes back unchanged.
public enum FileLinkRewriter {
    public static func rewrite(_ body: Data, link: (String) -> String?) -> Data {
        let bytes = [UInt8](body)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        var index = 0
        var expectingValueOf: String?
        var changed = false
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\"") else {
                if !Self.isWhitespace(byte) { expectingValueOf = nil }
                index += 1
                continue
            }
            guard let end = Self.endOfString(bytes, from: index) else { return body }
            let token = Array(bytes[index...end])
            var next = end + 1
            while next < bytes.count, Self.isWhitespace(bytes[next]) { next += 1 }
            if next < bytes.count, bytes[next] == UInt8(ascii: ":") {
                // A key: the next token is its value.
                expectingValueOf = Self.decode(token)
                index = next + 1
                continue
            }
            if expectingValueOf == "url", let value = Self.decode(token), let replacement = link(value), replacement != value,
               let encoded = Self.encode(replacement) {
                output += bytes[copied..<index]
                output += encoded
                copied = end + 1
                changed = true
            }
            expectingValueOf = nil
            index = end + 1
        }
        guard changed else { return body }
        output += bytes[copied...]
        return Data(output)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The index of the quote closing the string that opens at `start`.
    static func endOfString(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index
            default: index += 1
            }
        }
        return nil
    }

    static func decode(_ token: [UInt8]) -> String? {
        if !token.contains(UInt8(ascii: "\\")) { return String(decoding: token.dropFirst().dropLast(), as: UTF8.self) }
        return try? JSONSerialization.jsonObject(with: Data(token), options: [.fragmentsAllowed]) as? String
    }

    static func encode(_ text: String) -> [UInt8]? {
        (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])).map { [UInt8]($0) }
    }
}
