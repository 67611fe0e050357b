#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which otherwise-forbidden destinations a ``CurlHTTPClient`` may connect to.
///
/// By default the client refuses to connect to any address that is not publicly routable
/// (server-side request forgery protection, see ``DestinationAllowList/restriction(of:)``):
/// loopback, private (RFC 1918, IPv6 ULA `fc00::/7`), link-local (`169.254.0.0/16`,
/// `fe80::/10`), unspecified (`0.0.0.0/8`, `::`), CGNAT (`100.64.0.0/10`), multicast and
/// reserved ranges, and the cloud metadata endpoints (`169.254.169.254`, `fd00:ec2::254`).
/// IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and
/// 6to4 (`2002::/16`) IPv6 addresses are judged by the IPv4 address they carry.
///
/// Entries lift that restriction:
/// - a network in CIDR notation (`10.20.0.0/16`, `fd12:3456::/48`) or a single address
///   (`127.0.0.1`, `::1`): any resolved address inside it is allowed;
/// - a host name (`sis.internal.example.edu`): any address it resolves to is allowed when it is
///   the host of the URL being fetched (exact match, case-insensitive, no wildcards). This trusts
///   that name's DNS, so prefer networks.
///
/// Cloud metadata addresses are only allowed by an entry that names that exact address
/// (`169.254.169.254` or `169.254.169.254/32`), never by a wider network or a host name, so
/// allowing `169.254.0.0/16` for a link-local device does not expose instance credentials.
///
/// The check runs on the address libcurl actually connects to, after DNS resolution; see
/// `DestinationGuard`.
public struct DestinationAllowList: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// An entry that is neither an address, a CIDR network nor a host name.
    public struct InvalidEntry: Error, Sendable, Hashable, CustomStringConvertible {
        public var entry: String
        public var description: String { "Invalid destination allow-list entry: \(entry)" }
    }

    /// The allow-listed networks.
    let networks: [IPNetwork]
    /// The allow-listed host names, lowercased, without a trailing dot.
    let hosts: Set<String>

    /// Nothing allowed beyond public addresses: the default.
    public static let none = DestinationAllowList()

    /// The loopback networks `127.0.0.0/8` and `::1`: for tests and local development sources.
    public static let loopback: DestinationAllowList = ["127.0.0.0/8", "::1/128"]

    /// An empty allow-list.
    public init() {
        networks = []
        hosts = []
    }

    /// Parses entries: addresses, CIDR networks (`a.b.c.d/n`, `x::y/n`) and host names.
    /// Surrounding whitespace is ignored; IPv6 addresses may be bracketed (`[::1]`).
    public init(_ entries: [String]) throws(InvalidEntry) {
        var networks: [IPNetwork] = []
        var hosts: Set<String> = []
        for raw in entries {
            let entry = raw.trimmingASCIIWhitespace()
            if let network = IPNetwork(entry) {
                networks.append(network)
            } else if let host = Self.normalizedHostName(entry) {
                hosts.insert(host)
            } else {
                throw InvalidEntry(entry: raw)
            }
        }
        self.networks = networks
        self.hosts = hosts
    }

    /// For literals in code; an invalid literal entry is a programming error and traps.
    public init(arrayLiteral elements: String...) {
        do {
            try self.init(elements)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The entries, networks first.
    public var entries: [String] { networks.map(\.description) + hosts.sorted() }

    public var description: String { "[" + entries.joined(separator: ", ") + "]" }

    /// This list plus `other`'s entries.
    public func union(_ other: DestinationAllowList) -> DestinationAllowList {
        DestinationAllowList(networks: networks + other.networks, hosts: hosts.union(other.hosts))
    }

    private init(networks: [IPNetwork], hosts: Set<String>) {
        self.networks = networks
        self.hosts = hosts
    }

    /// Whether a connection to `address` (an IPv4 or IPv6 address as text) would be allowed when
    /// fetching a URL whose host is `host`. Text that is not an IP address is never allowed.
    public func permits(address: String, host: String? = nil) -> Bool {
        guard let bytes = IPNetwork.parseAddress(address) else { return false }
        return verdict(for: bytes, host: host) == nil
    }

    /// Whether `host` is one of the allow-listed host names (case-insensitive, a trailing dot ignored).
    public func lists(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return hosts.contains(name)
    }

    /// Why `address` is forbidden unless allow-listed (e.g. `"loopback"`), or `nil` for a public
    /// address. `nil` also for text that is not an IP address.
    public static func restriction(of address: String) -> String? {
        guard let bytes = IPNetwork.parseAddress(address) else { return nil }
        return AddressClass.restriction(of: bytes)?.reason
    }

    /// `nil` if a connection to `bytes` is allowed, else the reason it is not.
    func verdict(for bytes: [UInt8], host: String?) -> String? {
        guard let restriction = AddressClass.restriction(of: bytes) else { return nil }
        let address = AddressClass.unwrapMapped(bytes)
        if restriction.isMetadata {
            // Only an exact entry for this address lifts the metadata block.
            let exact = networks.contains { $0.prefixLength == $0.bytes.count * 8 && $0.bytes == address }
            return exact ? nil : restriction.reason
        }
        if networks.contains(where: { $0.contains(address) }) { return nil }
        if let host, let name = Self.normalizedHostName(host), hosts.contains(name) { return nil }
        return restriction.reason
    }

    /// `host` lowercased without a trailing dot, if it is a plausible DNS name (letters, digits,
    /// `-`, `_`, `.`) and not an IP address.
    static func normalizedHostName(_ host: String) -> String? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 253, IPNetwork.parseAddress(name) == nil else { return nil }
        let valid = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                return true
            default:
                return false
            }
        }
        return valid && !name.hasPrefix(".") && !name.contains("..") ? name : nil
    }
}

/// An IPv4 or IPv6 network: address bytes (4 or 16) and prefix length.
struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefixLength: Int

    init(bytes: [UInt8], prefixLength: Int) {
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    /// Parses `address` or `address/prefix`; `nil` if it is neither.
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let bytes = Self.parseAddress(String(first)), !first.contains("%") else {
            return nil
        }
        var length = bytes.count * 8
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let value = Int(digits), value <= length else { return nil }
            length = value
        }
        self.bytes = bytes
        self.prefixLength = length
    }

    /// Whether `address` (4 or 16 bytes) lies in this network.
    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(bytes, address) {
            guard remaining > 0 else { break }
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }

    var description: String { "\(Self.format(bytes))/\(prefixLength)" }

    /// The bytes of an IPv4 (4) or IPv6 (16) address in text form (`[…]` brackets and an IPv6
    /// `%zone` suffix are ignored); `nil` otherwise. Only strict dotted-quad IPv4 is accepted.
    static func parseAddress(_ text: String) -> [UInt8]? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.contains(":"), let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        if text.contains(":") {
            var storage = in6_addr()
            guard inet_pton(AF_INET6, text, &storage) == 1 else { return nil }
            return withUnsafeBytes(of: &storage) { Array($0) }
        }
        var storage = in_addr()
        guard inet_pton(AF_INET, text, &storage) == 1 else { return nil }
        return withUnsafeBytes(of: &storage) { Array($0) }
    }

    /// Text form of 4 or 16 address bytes.
    static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return bytes.map { String($0) }.joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The address ranges a client must not reach unless allow-listed.
enum AddressClass {
    struct Restriction: Equatable {
        var reason: String
        var isMetadata: Bool
    }

    private static func net(_ text: String) -> IPNetwork {
        guard let network = IPNetwork(text) else { preconditionFailure("bad built-in network \(text)") }
        return network
    }

    /// Instance metadata services that hand out cloud credentials (AWS, GCP, Azure, OpenStack
    /// share 169.254.169.254; AWS Nitro's IPv6 endpoint is fd00:ec2::254).
    static let metadata: [IPNetwork] = [net("169.254.169.254/32"), net("fd00:ec2::254/128")]

    static let restricted: [(network: IPNetwork, reason: String)] = [
        (net("0.0.0.0/8"), "unspecified"),
        (net("10.0.0.0/8"), "private"),
        (net("100.64.0.0/10"), "carrier-grade NAT"),
        (net("127.0.0.0/8"), "loopback"),
        (net("169.254.0.0/16"), "link-local"),
        (net("172.16.0.0/12"), "private"),
        (net("192.168.0.0/16"), "private"),
        (net("224.0.0.0/4"), "multicast"),
        (net("240.0.0.0/4"), "reserved"),
        (net("::/128"), "unspecified"),
        (net("::1/128"), "loopback"),
        (net("fc00::/7"), "private"),
        (net("fe80::/10"), "link-local"),
        (net("fec0::/10"), "site-local"),
        (net("ff00::/8"), "multicast"),
    ]

    /// IPv6 ranges whose last (or, for 6to4, second to fifth) bytes are an IPv4 address.
    private static let ipv4Mapped = net("::ffff:0:0/96")
    private static let ipv4Compatible = net("::/96")
    private static let nat64 = net("64:ff9b::/96")
    private static let sixToFour = net("2002::/16")

    /// An IPv4-mapped IPv6 address as its IPv4 bytes (the kernel connects it over IPv4); any
    /// other address unchanged.
    static func unwrapMapped(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count == 16 && ipv4Mapped.contains(bytes) ? Array(bytes[12...]) : bytes
    }

    /// Why `bytes` is restricted, or `nil` if it is a public address.
    static func restriction(of bytes: [UInt8]) -> Restriction? {
        let address = unwrapMapped(bytes)
        if metadata.contains(where: { $0.contains(address) }) {
            return Restriction(reason: "cloud metadata", isMetadata: true)
        }
        if let match = restricted.first(where: { $0.network.contains(address) }) {
            return Restriction(reason: match.reason, isMetadata: false)
        }
        if address.count == 16 {
            // Transition formats that reach an IPv4 address: judge by that address.
            var embedded: [UInt8]?
            if ipv4Compatible.contains(address) || nat64.contains(address) {
                embedded = Array(address[12...])
            } else if sixToFour.contains(address) {
                embedded = Array(address[2..<6])
            }
            if let embedded, var inner = restriction(of: embedded) {
                inner.reason += " (embedded IPv4)"
                return inner
            }
        }
        return nil
    }
}

extension String {
    func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
