import CoreMetrics
import Foundation
import GatewayCore
import Logging

/// Runs one claimed job through its handler and turns what happened into a ``JobResolution``.
struct JobExecutor: Sendable {
    let registry: JobRegistry
    let clock: any GatewayClock
    let backoff: Backoff
    let logger: Logger
    /// Uniform in `0..<1`, for backoff jitter.
    let random: @Sendable () -> Double

    func execute(_ job: ClaimedJob) async -> JobResolution {
        await execute(job, metrics: QueueMetrics.forQueue(job.queue))
    }

    /// Runs `job`, recording its wait and run time in `metrics` (its queue's).
    func execute(_ job: ClaimedJob, metrics: QueueMetrics) async -> JobResolution {
        let context = JobContext(
            jobID: job.id, kind: job.kind, queue: job.queue, attempt: job.attempt, maxAttempts: job.maxAttempts,
            scheduledAt: Date(millisecondsSince1970: job.scheduledAtMs), uniqueKey: job.uniqueKey, logger: logger,
            clock: clock
        )
        let kindMetrics = metrics.kind(job.kind)
        kindMetrics.wait.recordMilliseconds(max(0, job.attemptedAtMs - job.scheduledAtMs))
        let started = ContinuousClock.now
        let outcome: JobOutcome
        do {
            guard let handler = registry.handler(for: job.kind) else { throw UnknownKind(kind: job.kind) }
            outcome = try await handler.run(job.args, context)
        } catch let error as JobRetryLater {
            outcome = .retry(after: error.after, message: error.message)
        } catch let error as JobCancel {
            outcome = .cancel(reason: error.reason)
        } catch let error as JobSnooze {
            outcome = .snooze(seconds: error.seconds)
        } catch {
            outcome = .retry(after: nil, message: Self.describe(error))
        }
        let elapsed = ContinuousClock.now - started
        kindMetrics.duration.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        return resolution(for: job, outcome: outcome, context: context)
    }

    func resolution(for job: ClaimedJob, outcome: JobOutcome, context: JobContext) -> JobResolution {
        let now = clock.now()
        let action: JobResolution.Action
        switch outcome {
        case .complete:
            action = .complete
        case .retry(let after, let message):
            let delay = after ?? backoff.delay(afterAttempt: job.attempt, unit: random())
            action = .fail(message: message, retryAtMs: now.addingTimeInterval(delay).millisecondsSince1970)
            context.logger.warning("job attempt failed", metadata: ["error": "\(message)", "retryIn": "\(Int(delay))s"])
        case .cancel(let reason):
            action = .cancel(reason: reason)
            context.logger.notice("job cancelled by its handler", metadata: ["reason": "\(reason)"])
        case .snooze(let seconds):
            action = .snooze(untilMs: now.addingTimeInterval(seconds).millisecondsSince1970)
        }
        return JobResolution(id: job.id, attempt: job.attempt, queue: job.queue, kind: job.kind, action: action)
    }

    static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        let text = String(describing: error)
        return text.isEmpty ? String(reflecting: type(of: error)) : text
    }
}
