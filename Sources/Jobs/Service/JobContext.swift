public import Foundation
public import GatewayCore
public import Logging
import Synchronization

/// What a handler knows about the job it runs.
///
/// Cancellation is cooperative: the job's task is cancelled when the worker pool shuts down past
/// its timeout, when the job loses its lease, or when an admin cancels it. Long handlers should
/// check ``isCancelled`` or call ``checkCancellation()`` (`Task.sleep` and most async I/O do).
public struct JobContext: Sendable {
    public let jobID: Int64
    public let kind: String
    public let queue: String
    /// 1 for the first attempt.
    public let attempt: Int
    public let maxAttempts: Int
    /// When the job was due.
    public let scheduledAt: Date
    public let uniqueKey: String?
    /// A logger with `job`, `kind` and `attempt` metadata (made on first use: most jobs never
    /// log, and setting metadata costs more than a no-op job).
    public var logger: Logger {
        get { loggerBox.logger }
        set { loggerBox = LoggerBox(newValue) }
    }
    /// The service's clock: use it, not `Date()`, so tests can move time.
    public let clock: any GatewayClock
    private var loggerBox: LoggerBox

    init(
        jobID: Int64, kind: String, queue: String, attempt: Int, maxAttempts: Int, scheduledAt: Date,
        uniqueKey: String?, logger: Logger, clock: any GatewayClock
    ) {
        self.jobID = jobID
        self.kind = kind
        self.queue = queue
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.scheduledAt = scheduledAt
        self.uniqueKey = uniqueKey
        self.clock = clock
        self.loggerBox = LoggerBox(base: logger, job: jobID, kind: kind, attempt: attempt)
    }

    /// Whether this is the last attempt before the job is discarded.
    public var isLastAttempt: Bool { attempt >= maxAttempts }

    /// Whether the job's task has been cancelled (shutdown, lost lease, admin cancel).
    public var isCancelled: Bool { Task.isCancelled }

    /// Throws `CancellationError` when the job's task has been cancelled.
    public func checkCancellation() throws { try Task.checkCancellation() }
}

/// A job's logger, given its metadata the first time it is asked for.
final class LoggerBox: Sendable {
    private let state: Mutex<(logger: Logger, ready: Bool)>
    private let job: Int64
    private let kind: String
    private let attempt: Int

    init(base: Logger, job: Int64, kind: String, attempt: Int) {
        state = Mutex((base, false))
        self.job = job
        self.kind = kind
        self.attempt = attempt
    }

    init(_ logger: Logger) {
        state = Mutex((logger, true))
        job = 0
        kind = ""
        attempt = 0
    }

    var logger: Logger {
        state.withLock { state in
            if !state.ready {
                state.logger[metadataKey: "job"] = "\(job)"
                state.logger[metadataKey: "kind"] = "\(kind)"
                state.logger[metadataKey: "attempt"] = "\(attempt)"
                state.ready = true
            }
            return state.logger
        }
    }
}
