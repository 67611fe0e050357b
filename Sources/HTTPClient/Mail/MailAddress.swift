/// An email address as the gateway accepts it: plain ASCII `local@domain`, nothing that could
/// end a header line or an SMTP command.
///
/// The rule is deliberately narrower than RFC 5321/5322 (no quoted local parts, comments,
/// address literals or internationalised addresses): at most 254 bytes, a local part of at most
/// 64 characters of RFC 5322 `atext` and single dots, exactly one `@`, a domain of at least two
/// labels of letters, digits and inner hyphens, the last not all digits (no top-level domain
/// is: `user@127.0.0.1` would hand the relay an address to deliver to). No whitespace, CR, LF,
/// NUL or other control character can get through, so an address can't inject a header or an
/// SMTP command. The domain is kept in lower case; the local part as given.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    /// `local@domain`.
    public let value: String

    /// Why an address was refused (a fixed sentence; never quotes the input).
    public struct Invalid: Error, Sendable, Equatable {
        public let reason: String
    }

    public init(validating raw: String) throws(Invalid) {
        let bytes = Array(raw.utf8)
        guard (3...254).contains(bytes.count) else { throw Invalid(reason: "must be 3 to 254 characters") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Invalid(reason: "must be plain ASCII without spaces or control characters")
        }
        let parts = raw.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw Invalid(reason: "must contain exactly one @") }
        let local = parts[0], domain = parts[1].lowercased()
        guard (1...64).contains(local.utf8.count), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
              local.utf8.allSatisfy(Self.isAtext) else {
            throw Invalid(reason: "has a local part (before the @) that is not allowed")
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard domain.utf8.count <= 253, labels.count >= 2, labels.allSatisfy(Self.isLabel),
              let last = labels.last, !last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw Invalid(reason: "must end in a domain name such as example.edu")
        }
        value = "\(local)@\(domain)"
    }

    /// The part after the `@`.
    public var domain: Substring { value[value.index(after: value.lastIndex(of: "@")!)...] }

    public var description: String { value }

    /// RFC 5322 `atext` plus the dot.
    static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-/=?^_`{|}~.".utf8.contains(byte)
        }
    }

    static func isLabel(_ label: Substring) -> Bool {
        (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
            && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }
}
