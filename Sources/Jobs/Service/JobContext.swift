public import Foundation
public import GatewayCore
public import Logging

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
    /// A logger with `job`, `kind`, `queue` and `attempt` metadata.
    public var logger: Logger
    /// The service's clock: use it, not `Date()`, so tests can move time.
    public let clock: any GatewayClock

    /// Whether this is the last attempt before the job is discarded.
    public var isLastAttempt: Bool { attempt >= maxAttempts }

    /// Whether the job's task has been cancelled (shutdown, lost lease, admin cancel).
    public var isCancelled: Bool { Task.isCancelled }

    /// Throws `CancellationError` when the job's task has been cancelled.
    public func checkCancellation() throws { try Task.checkCancellation() }
}
