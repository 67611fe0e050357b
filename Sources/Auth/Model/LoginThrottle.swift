public import Foundation
public import Synchronization

/// Limits failed sign-ins within a sliding window, so a password can't be guessed quickly, one
/// address can't grind through many accounts, and a stranger can't lock a student out.
///
/// Three counters, each checked before a credential is verified:
/// - per username *and* address (default 5): the guessing limit from one place. Failures from
///   someone else's address never slow a student down;
/// - per username from any address (default 100): bounds guessing spread over many addresses.
///   It does not apply from an address where the username signed in successfully within
///   `knownAddressLifetime` (default 30 days), so a student keeps working from their usual
///   network even while strangers are held back;
/// - per address (default 50): one address trying many usernames.
///
/// IPv6 addresses count per /64 network, since one subscriber usually holds a whole /64.
/// The state is in memory: it protects one process.
public final class LoginThrottle: Sendable {
    public struct Limits: Sendable {
        /// Failures for one username from one client address.
        public var failuresPerUsername: Int
        /// Failures for one username summed over every address.
        public var failuresPerUsernameOverall: Int
        /// Failures from one client address, whatever the username.
        public var failuresPerAddress: Int
        public var window: TimeInterval
        /// How long a successful sign-in makes its address known for that username.
        public var knownAddressLifetime: TimeInterval

        public init(
            failuresPerUsername: Int = 5, failuresPerUsernameOverall: Int = 100,
            failuresPerAddress: Int = 50, window: TimeInterval = 15 * 60,
            knownAddressLifetime: TimeInterval = 30 * 24 * 3600
        ) {
            self.failuresPerUsername = failuresPerUsername
            self.failuresPerUsernameOverall = failuresPerUsernameOverall
            self.failuresPerAddress = failuresPerAddress
            self.window = window
            self.knownAddressLifetime = knownAddressLifetime
        }
    }

    private struct State {
        var failures: [String: [Date]] = [:]
        /// (username, address) pairs that signed in successfully, with when.
        var known: [String: Date] = [:]
        var insertsSincePrune = 0
    }

    public let limits: Limits
    private let state = Mutex(State())

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Seconds the caller must wait, or nil when the attempt may proceed.
    public func retryAfter(username: String, address: String?, now: Date) -> Int? {
        state.withLock { state in
            var wait: TimeInterval = 0
            let known = address != nil && state.known[Self.pairKey(username, address)].map { now.timeIntervalSince($0) < limits.knownAddressLifetime } == true
            for (key, limit) in counters(username: username, address: address) where !(known && key.hasPrefix("u:")) {
                let recent = (state.failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.window }
                if recent.count >= limit, let oldest = recent.first {
                    wait = max(wait, limits.window - now.timeIntervalSince(oldest))
                }
            }
            return wait > 0 ? max(1, Int(wait.rounded(.up))) : nil
        }
    }

    /// Records a failed attempt against every counter it belongs to.
    public func recordFailure(username: String, address: String?, now: Date) {
        state.withLock { state in
            for (key, _) in counters(username: username, address: address) {
                var list = (state.failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.window }
                list.append(now)
                state.failures[key] = list
            }
            state.insertsSincePrune += 1
            if state.insertsSincePrune >= 1024 {
                state.insertsSincePrune = 0
                state.failures = state.failures.filter { _, dates in
                    dates.contains { now.timeIntervalSince($0) < limits.window }
                }
                state.known = state.known.filter { now.timeIntervalSince($0.value) < limits.knownAddressLifetime }
            }
        }
    }

    /// A successful sign-in clears the failures from this address for the username and makes
    /// the address known for it. Failures from elsewhere still count toward the overall limit,
    /// so a sign-in by the owner doesn't give a distributed guesser a fresh allowance.
    public func recordSuccess(username: String, address: String?, now: Date) {
        state.withLock { state in
            let pair = Self.pairKey(username, address)
            state.failures.removeValue(forKey: pair)
            if address != nil {
                if state.known.count >= 100_000 { state.known = state.known.filter { now.timeIntervalSince($0.value) < limits.knownAddressLifetime } }
                if state.known.count < 100_000 { state.known[pair] = now }
            }
        }
    }

    private func counters(username: String, address: String?) -> [(String, Int)] {
        var keys = [
            (Self.pairKey(username, address), limits.failuresPerUsername),
            ("u:" + username, limits.failuresPerUsernameOverall),
        ]
        if let address { keys.append(("a:" + Self.network(address), limits.failuresPerAddress)) }
        return keys
    }

    /// Client addresses never contain a newline, so two different pairs never share a key.
    private static func pairKey(_ username: String, _ address: String?) -> String {
        "p:" + username + "\n" + (address.map(network) ?? "-")
    }

    /// The unit an address is counted by: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its /64.
    public static func network(_ address: String) -> String {
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
