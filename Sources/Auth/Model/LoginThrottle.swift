import Foundation
import Synchronization

/// Limits failed logins per username and per client address within a sliding window, so a
/// password can't be guessed quickly and one address can't grind through many accounts.
///
/// The state is in memory: it protects one process. Counting failures (not attempts) means a
/// student who types the password right is never slowed down by someone else's guessing
/// from another address.
public final class LoginThrottle: Sendable {
    public struct Limits: Sendable {
        public var failuresPerUsername: Int
        public var failuresPerAddress: Int
        public var window: TimeInterval

        public init(failuresPerUsername: Int = 5, failuresPerAddress: Int = 50, window: TimeInterval = 15 * 60) {
            self.failuresPerUsername = failuresPerUsername
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
            let keys = [("u:" + username, limits.failuresPerUsername)] + (address.map { [("a:" + $0, limits.failuresPerAddress)] } ?? [])
            for (key, limit) in keys {
                let recent = (state.failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.window }
                if recent.count >= limit, let oldest = recent.first {
                    wait = max(wait, limits.window - now.timeIntervalSince(oldest))
                }
            }
            return wait > 0 ? max(1, Int(wait.rounded(.up))) : nil
        }
    }

    /// Records a failed attempt against both the username and the address.
    public func recordFailure(username: String, address: String?, now: Date) {
        state.withLock { state in
            for key in ["u:" + username] + (address.map { ["a:" + $0] } ?? []) {
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

    /// A successful login clears the username's failures (not the address's).
    public func recordSuccess(username: String) {
        _ = state.withLock { $0.failures.removeValue(forKey: "u:" + username) }
    }
}
