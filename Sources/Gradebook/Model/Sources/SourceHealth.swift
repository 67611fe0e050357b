public import Foundation

/// How a gradebook source has been answering the gateway's polls, and whether polls are
/// backing off from it. Pure: the rules are tested without a clock or a database.
///
/// Each failure while not already backing off doubles the pause (30 s, 1 min, 2 min, ... up to
/// 30 min); failures of polls that were already under way when the pause began don't count
/// again. One success clears it.
public struct SourceHealth: Sendable, Equatable {
    public var sourceID: Int64
    public var consecutiveFailures: Int
    public var lastSuccessAt: Date?
    public var lastFailureAt: Date?
    /// Why the last poll failed (the problem's words, never a credential).
    public var lastError: String?
    /// Polls of this source wait until then.
    public var backoffUntil: Date?
    public var polls: Int
    public var failures: Int

    public static let firstPause: TimeInterval = 30
    public static let longestPause: TimeInterval = 30 * 60

    public init(
        sourceID: Int64, consecutiveFailures: Int = 0, lastSuccessAt: Date? = nil, lastFailureAt: Date? = nil, lastError: String? = nil,
        backoffUntil: Date? = nil, polls: Int = 0, failures: Int = 0
    ) {
        self.sourceID = sourceID
        self.consecutiveFailures = consecutiveFailures
        self.lastSuccessAt = lastSuccessAt
        self.lastFailureAt = lastFailureAt
        self.lastError = lastError
        self.backoffUntil = backoffUntil
        self.polls = polls
        self.failures = failures
    }

    /// What an operator sees at a glance.
    public enum State: String, Sendable {
        /// Never polled yet.
        case unknown
        case healthy
        /// Polls are paused until `backoffUntil`.
        case backingOff = "backing-off"
        /// The last poll failed; the pause is over and the next poll will tell.
        case failing
    }

    public func state(at now: Date) -> State {
        if let backoffUntil, backoffUntil > now { return .backingOff }
        if consecutiveFailures > 0 { return .failing }
        return polls == 0 ? .unknown : .healthy
    }

    /// Whether a poll may reach the source now.
    public func allowsPoll(at now: Date) -> Bool { (backoffUntil ?? .distantPast) <= now }

    public func recordingSuccess(at now: Date) -> SourceHealth {
        var next = self
        next.polls += 1
        next.consecutiveFailures = 0
        next.lastSuccessAt = now
        next.backoffUntil = nil
        return next
    }

    public func recordingFailure(_ error: String, at now: Date) -> SourceHealth {
        var next = self
        next.polls += 1
        next.failures += 1
        next.lastFailureAt = now
        next.lastError = String(error.prefix(300))
        // A poll that started before the pause began says nothing new about the source.
        guard allowsPoll(at: now) else { return next }
        next.consecutiveFailures += 1
        let pause = min(Self.longestPause, Self.firstPause * pow(2, Double(min(next.consecutiveFailures - 1, 20))))
        next.backoffUntil = now.addingTimeInterval(pause)
        return next
    }
}
