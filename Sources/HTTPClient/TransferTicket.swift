import Foundation

/// Connects one waiting `execute` call to the pool thread that performs its transfer, and
/// carries Task cancellation across.
///
/// The continuation is resumed exactly once, by whichever comes first:
/// - the pool thread finishing the transfer (``finish(_:)``);
/// - cancellation while the job is still queued (``cancel()``): the caller is released at
///   once and the pool thread later skips the job (``begin()`` returns `false`);
/// - cancellation before the continuation even exists (``install(_:)`` resumes it).
///
/// Cancellation of a running transfer only raises ``isCancelled``; libcurl's progress callback
/// polls it and aborts, and the pool thread then reports `CancellationError`.
///
/// `Value` is what the transfer produces: an ``OutboundResponse`` for HTTP, an
/// ``SMTPReceipt`` for a mail.
///
/// `@unchecked Sendable`: all mutable state is guarded by `lock`; it is touched from the
/// calling task, the cancellation handler and one pool thread.
final class TransferTicket<Value: Sendable>: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<Value, any Error>

    private enum Phase {
        case waitingForContinuation
        case queued
        case running
        case finished
    }

    private let lock = NSLock()
    private var phase = Phase.waitingForContinuation
    private var continuation: Continuation?
    private var cancelled = false

    /// Whether the owning task has been cancelled. Cheap enough to poll from curl callbacks.
    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Stores the continuation. If the task was already cancelled, resumes it with
    /// `CancellationError` and returns `false`: the caller must not enqueue the job.
    func install(_ continuation: Continuation) -> Bool {
        let accepted: Bool = lock.withLock {
            if cancelled {
                phase = .finished
                return false
            }
            self.continuation = continuation
            phase = .queued
            return true
        }
        if !accepted { continuation.resume(throwing: CancellationError()) }
        return accepted
    }

    /// Called by the cancellation handler of the owning task.
    func cancel() {
        let toResume: Continuation? = lock.withLock {
            cancelled = true
            guard phase == .queued else { return nil }
            phase = .finished
            defer { continuation = nil }
            return continuation
        }
        toResume?.resume(throwing: CancellationError())
    }

    /// Called on the pool thread before performing. Returns `false` if the request has already
    /// been answered (cancelled while queued) and must be skipped.
    func begin() -> Bool {
        lock.withLock {
            guard phase == .queued else { return false }
            phase = .running
            return true
        }
    }

    /// Resumes the caller with `result`, unless it has already been resumed.
    func finish(_ result: Result<Value, any Error>) {
        let toResume: Continuation? = lock.withLock {
            guard phase != .finished else { return nil }
            phase = .finished
            defer { continuation = nil }
            return continuation
        }
        toResume?.resume(with: result)
    }
}
