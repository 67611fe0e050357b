import Telemetry
import Tracing
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
        // The run is a span of the trace that queued it (the request, or the job, whose
        // traceparent was stored with it).
        let outcome: JobOutcome = (try? await GatewayTracing.span(
            "job \(job.kind)", ofKind: .consumer, context: GatewayTracing.context(continuing: job.traceparent)
        ) { span in
            span?.attributes["job.kind"] = job.kind
            span?.attributes["job.queue"] = job.queue
            span?.attributes["job.id"] = Int(job.id)
            span?.attributes["job.attempt"] = job.attempt
            let outcome = await run(job, context)
            if case .retry = outcome { span?.setStatus(SpanStatus(code: .error, message: "failed; retried later")) }
            return outcome
        }) ?? .retry(after: nil, message: "the run was not recorded")
        let elapsed = ContinuousClock.now - started
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        kindMetrics.duration.recordNanoseconds(nanoseconds)
        return resolution(for: job, outcome: outcome, context: context, runMs: max(0, nanoseconds / 1_000_000))
    }

    /// The handler's outcome, errors turned into outcomes.
    private func run(_ job: ClaimedJob, _ context: JobContext) async -> JobOutcome {
        do {
            guard let handler = registry.handler(for: job.kind) else { throw UnknownKind(kind: job.kind) }
            return try await handler.run(job.args, context)
        } catch let error as JobRetryLater {
            return .retry(after: error.after, message: error.message)
        } catch let error as JobCancel {
            return .cancel(reason: error.reason)
        } catch let error as JobSnooze {
            return .snooze(seconds: error.seconds)
        } catch {
            return .retry(after: nil, message: Self.describe(error))
        }
    }

    func resolution(for job: ClaimedJob, outcome: JobOutcome, context: JobContext, runMs: Int64? = nil) -> JobResolution {
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
        return JobResolution(id: job.id, attempt: job.attempt, queue: job.queue, kind: job.kind, action: action, runMs: runMs)
    }

    static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled" }
        let text = String(describing: error)
        return text.isEmpty ? String(reflecting: type(of: error)) : text
    }
}
