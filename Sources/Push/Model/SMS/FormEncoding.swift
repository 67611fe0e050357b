public import Foundation

/// `application/x-www-form-urlencoded` (the WHATWG URL standard's serializer and parser), pure:
/// what Twilio's REST API takes and what its webhooks post. Order and repeated names are kept.
public enum FormEncoding {
    /// `name=value&...`, every byte but ASCII letters, digits and `*-._` percent-encoded, a space as `+`.
    public static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { "\(component($0.name))=\(component($0.value))" }.joined(separator: "&")
    }

    static func component(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The fields of a form body, in order; `+` is a space, bad percent escapes stay as they are.
    public static func decode(_ body: String) -> [(name: String, value: String)] {
        body.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    static func unescape(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
