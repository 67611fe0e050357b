public import Foundation

/// Exponential backoff with jitter: how long a failed job waits before its next attempt.
///
/// The delay after attempt `n` (1-based) is `min(maximum, base · factor^(n−1))`, spread by
/// ±`jitter` (a fraction) so that jobs that failed together do not retry together.
public struct Backoff: Sendable, Equatable {
    public var base: TimeInterval
    public var factor: Double
    public var maximum: TimeInterval
    /// The spread as a fraction of the delay, in `0...1`.
    public var jitter: Double

    public init(base: TimeInterval = 2, factor: Double = 2, maximum: TimeInterval = 3600, jitter: Double = 0.2) {
        self.base = max(0, base)
        self.factor = max(1, factor)
        self.maximum = max(self.base, maximum)
        self.jitter = min(1, max(0, jitter))
    }

    /// The delay before the attempt after `attempt`, for a uniform random `unit` in `0..<1`
    /// (injected so tests are deterministic).
    public func delay(afterAttempt attempt: Int, unit: Double) -> TimeInterval {
        let raw = min(maximum, base * pow(factor, Double(max(0, attempt - 1))))
        let spread = raw * jitter
        return max(0, raw - spread + 2 * spread * min(1, max(0, unit)))
    }

    /// The bounds `delay(afterAttempt:unit:)` stays within.
    public func bounds(afterAttempt attempt: Int) -> ClosedRange<TimeInterval> {
        delay(afterAttempt: attempt, unit: 0)...delay(afterAttempt: attempt, unit: 1)
    }
}
