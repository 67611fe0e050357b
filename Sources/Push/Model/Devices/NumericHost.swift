/// Numeric host forms in user-supplied URLs (webhook URLs, Web Push endpoints), pure.
///
/// Resolvers and URL parsers (libcurl, browsers' WHATWG parser, `inet_aton`) read many numeric
/// forms as IPv4 addresses: `2130706433`, `0x7f000001`, `0x7f.1`, `0177.0.0.1`, `127.1` and
/// `127.0.0.1.` all mean 127.0.0.1. A check that recognises only dotted quads lets them past
/// as "host names", so they are refused outright: a numeric host must be a canonical dotted
/// quad (four decimal numbers 0 to 255 without leading zeros, no trailing dot) or a bracketed
/// IPv6 address, and is then judged by its address. The connect-time guard stays the real
/// control; this makes the refusal early and clear.
public enum NumericHost {
    /// Why it is refused, for a 422 or a discarded delivery.
    public static let reason = "must name its host with a DNS name, a dotted-quad IPv4 address (such as 203.0.113.5) or a bracketed IPv6 address, not another numeric form (such as 2130706433, 0x7f.1, 0177.0.0.1 or 127.1)"

    /// Whether `host` (a URL's host, IPv6 with or without its brackets) is a numeric form other
    /// than a canonical dotted quad or an IPv6 address.
    ///
    /// A host is numeric when its last label (after one trailing dot) is all decimal digits or
    /// `0x` and hex digits, the WHATWG URL standard's "ends in a number" rule: `example.123`
    /// counts, `0x7f.example.org` does not.
    public static func isRefused(_ host: String) -> Bool {
        // IPv6 literals hold colons, which no other host form may.
        guard !host.contains(":") else { return false }
        var labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        var trailingDot = false
        if labels.count > 1, labels.last?.isEmpty == true {
            labels.removeLast()
            trailingDot = true
        }
        guard let last = labels.last, endsInNumber(last) else { return false }
        return trailingDot || labels.count != 4 || !labels.allSatisfy(isCanonicalOctet)
    }

    static func endsInNumber(_ label: Substring) -> Bool {
        guard !label.isEmpty else { return false }
        if label.utf8.allSatisfy(isDigit) { return true }
        guard label.hasPrefix("0x") else { return false }
        return label.utf8.dropFirst(2).allSatisfy { isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// `0` to `255` in decimal, without leading zeros.
    static func isCanonicalOctet(_ label: Substring) -> Bool {
        guard (1...3).contains(label.utf8.count), label.utf8.allSatisfy(isDigit), let value = Int(label), value <= 255 else { return false }
        return label == "0" || !label.hasPrefix("0")
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
