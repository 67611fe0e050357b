public import Foundation

/// What a handler decides about its job when it returns.
public enum JobOutcome: Sendable, Equatable {
    /// Done: the job is completed.
    case complete
    /// Failed this attempt: retry after `after` seconds (nil: the queue's backoff), recording
    /// `message` in the job's errors. After the last attempt the job is discarded instead.
    case retry(after: TimeInterval?, message: String)
    /// Stop for good: the job is cancelled, with `reason` recorded in its errors.
    case cancel(reason: String)
    /// Not now: run again after `seconds` without using up an attempt.
    case snooze(seconds: TimeInterval)
}

/// Throw from anywhere in a handler to retry at a time the handler knows, for example from an
/// upstream's `Retry-After`. Counts as a failed attempt.
public struct JobRetryLater: Error, Sendable, CustomStringConvertible {
    public let after: TimeInterval
    public let message: String

    public init(after seconds: TimeInterval, message: String) {
        self.after = max(0, seconds)
        self.message = message
    }

    public var description: String { message }
}

/// Throw from anywhere in a handler to cancel the job for good (no more attempts).
public struct JobCancel: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Throw from anywhere in a handler to run the job again later without using up an attempt.
public struct JobSnooze: Error, Sendable {
    public let seconds: TimeInterval
    public init(seconds: TimeInterval) { self.seconds = max(0, seconds) }
}

/// One failed attempt (or a cancellation, or a lost lease) in a job's history.
public struct JobAttemptError: Codable, Sendable, Equatable {
    public let at: Date
    public let attempt: Int
    public let error: String

    public init(at: Date, attempt: Int, error: String) {
        self.at = at
        self.attempt = attempt
        self.error = error
    }
}
