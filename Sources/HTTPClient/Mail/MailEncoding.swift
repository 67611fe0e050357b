import Foundation

/// The encodings a plain-text UTF-8 mail needs, as pure functions: quoted-printable bodies
/// (RFC 2045 §6.7), encoded-words for non-ASCII header text (RFC 2047), header folding and the
/// RFC 5322 date.
enum MailEncoding {
    static let crlf = "\r\n"

    /// `text` as quoted-printable lines joined by CRLF (any CR, LF or CRLF in the input is a
    /// line break). Encoded lines are at most 76 characters (soft breaks `=` CRLF); `=`, every
    /// non-ASCII or control byte, a space or tab at a line's end and a dot at a line's start are
    /// written `=XX`, so no line is a lone `.` whatever the transport.
    static func quotedPrintable(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var output: [String] = []
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var current = ""
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let token: String
                switch byte {
                case UInt8(ascii: "."):
                    token = current.isEmpty ? "=2E" : "."
                case UInt8(ascii: " "), UInt8(ascii: "\t"):
                    token = last ? hex(byte) : String(UnicodeScalar(byte))
                case UInt8(ascii: "="):
                    token = hex(byte)
                case 33...126:
                    token = String(UnicodeScalar(byte))
                default:
                    token = hex(byte)
                }
                if current.utf8.count + token.utf8.count > 75 {
                    output.append(current + "=")
                    current = token == "." ? "=2E" : token
                } else {
                    current += token
                }
            }
            output.append(current)
        }
        return output.joined(separator: crlf) + crlf
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    /// Whether `text` can go in a header as it is: printable ASCII and spaces only.
    static func isPlainHeaderText(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// An unstructured header value (`Subject`): as is when plain ASCII, otherwise RFC 2047
    /// `=?UTF-8?B?...?=` words of whole characters, each at most 75 characters; folded with
    /// CRLF and a space so that lines stay short. `nameLength` is the header name's length
    /// with its colon and space.
    static func unstructured(_ text: String, nameLength: Int) -> String {
        if isPlainHeaderText(text) { return fold(text, firstLineUsed: nameLength) }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(encodedWord(chunk)) }
        return words.joined(separator: crlf + " ")
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// Folds plain text at spaces so lines stay within 78 characters where a space allows it.
    static func fold(_ text: String, firstLineUsed: Int) -> String {
        var lines: [String] = []
        var current = ""
        var used = firstLineUsed
        for (index, word) in text.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if index == 0 {
                current = String(word)
            } else if !current.isEmpty, !word.isEmpty, used + current.utf8.count + 1 + word.utf8.count > 78 {
                // The space becomes CRLF + space: unfolding gives the text back.
                lines.append(current)
                current = String(word)
                used = 1
            } else {
                current += " " + word
            }
        }
        lines.append(current)
        return lines.joined(separator: crlf + " ")
    }

    /// A display name for `From`: a quoted string when plain ASCII, else an encoded-word.
    static func displayName(_ name: String) -> String {
        guard isPlainHeaderText(name) else { return unstructured(name, nameLength: 78) }
        return "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// RFC 5322 `date-time` in UTC: `Tue, 01 Jul 2025 10:00:00 +0000`.
    static func date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int?) -> String { let v = value ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[(c.weekday ?? 1) - 1]), \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}
