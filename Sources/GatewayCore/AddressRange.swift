import Foundation

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `::1/128`, or a bare address for
/// one host): which peers are trusted proxies.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's address bytes (4 or 16) and prefix length.
    public let bytes: [UInt8]
    public let prefixLength: Int

    /// Parses `address[/prefix]`; nil when it is not one.
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = Self.parse(String(first)) else { return nil }
        let maximum = bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maximum).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = maximum
        }
        self.bytes = bytes
    }

    /// Whether `address` (an IP address as text) lies in this network. IPv4-mapped IPv6
    /// addresses (`::ffff:10.0.0.1`) count as their IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard var candidate = Self.parse(address) else { return false }
        if bytes.count == 4, candidate.count == 16, candidate.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
            candidate = Array(candidate.suffix(4))
        }
        guard candidate.count == bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(bytes, candidate) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String {
        let text = bytes.count == 4
            ? bytes.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
        return "\(text)/\(prefixLength)"
    }

    /// The loopback networks: a proxy on the same host.
    public static let loopback: [AddressRange] = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]

    /// The bytes of an IPv4 (4) or IPv6 (16) address; nil when the text is neither.
    static func parse(_ text: String) -> [UInt8]? {
        if text.contains(":") { return parseIPv6(text) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6(_ raw: String) -> [UInt8]? {
        var text = Substring(raw)
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard text.count <= 45 else { return nil }
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            let items = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, item) in items.enumerated() {
                if index == items.count - 1, item.contains("."), let v4 = parse(String(item)) {
                    result.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                    result.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                } else {
                    guard (1...4).contains(item.count), let value = UInt16(item, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all: [UInt16]
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }
}
