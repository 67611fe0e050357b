/// What per-client limits count by: one IPv4 address, or one IPv6 /64 (what a single
/// subscriber is usually given, so rotating addresses inside it gains nothing).
public enum ClientNetwork {
    /// The unit an address is counted by: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its /64.
    public static func key(_ address: String) -> String {
        guard address.contains(":"), !address.contains(".") else { return address }
        var groups = [String]()
        let halves = address.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        }
        if halves.count == 2 {
            let missing = max(0, 8 - halves[0].count - halves[1].count)
            groups = halves[0] + Array(repeating: "0", count: missing) + halves[1]
        } else {
            groups = halves[0]
        }
        guard groups.count >= 4 else { return address.lowercased() }
        return groups.prefix(4).map { String(Int($0, radix: 16) ?? 0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}
