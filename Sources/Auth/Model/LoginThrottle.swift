import Foundation
import Synchronization

/// Limits failed sign-ins within a sliding window, so a password can't be guessed quickly, one
/// address can't grind through many accounts, and a stranger can't lock a student out.
///
/// Three counters, each checked before a credential is verified:
/// - per username *and* address (default 5): the guessing limit from one place. Failures from
///   someone else's address never slow a student down;
/// - per username from any address (default 100): bounds guessing spread over many addresses,
///   set well above what one address may try so a single stranger can't reach it;
/// - per address (default 50): one address trying many usernames.
///
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

        public init(
            failuresPerUsername: Int = 5, failuresPerUsernameOverall: Int = 100,
            failuresPerAddress: Int = 50, window: TimeInterval = 15 * 60
        ) {
            self.failuresPerUsername = failuresPerUsername
            self.failuresPerUsernameOverall = failuresPerUsernameOverall
            self.failuresPerAddress = failuresPerAddress
            self.window = window
        }
    }

    private struct State {
        var failures: [String: [Date]] = [:]
        var insertsSincePrune = 0
    }

    public let limits: Limits
    private let state = Mutex(State())

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Seconds the caller must wait, or nil when the attempt may proceed.
    public func retryAfter(username: String, address: String?, now: Date) -> Int? {
        state.withLock { state in
            var wait: TimeInterval = 0
            for (key, limit) in counters(username: username, address: address) {
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
            }
        }
    }

    /// A successful sign-in clears the username's failures (not the address's).
    public func recordSuccess(username: String, address: String?) {
        state.withLock { state in
            state.failures.removeValue(forKey: Self.pairKey(username, address))
            state.failures.removeValue(forKey: "u:" + username)
        }
    }

    private func counters(username: String, address: String?) -> [(String, Int)] {
        var keys = [
            (Self.pairKey(username, address), limits.failuresPerUsername),
            ("u:" + username, limits.failuresPerUsernameOverall),
        ]
        if let address { keys.append(("a:" + address, limits.failuresPerAddress)) }
        return keys
    }

    /// Client addresses never contain a newline, so two different pairs never share a key.
    private static func pairKey(_ username: String, _ address: String?) -> String {
        "p:" + username + "\n" + (address ?? "-")
    }
}
