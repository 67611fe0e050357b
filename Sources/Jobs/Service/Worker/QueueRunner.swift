import GatewayCore
import CoreMetrics
import Foundation
import Logging
import Synchronization

/// Works one queue in one process: claims up to its concurrency limit, runs each job in its own
/// task, and records outcomes. Outcomes finished since the last write are recorded together with
/// the next claim, in one transaction, so a busy queue costs about one write per batch of jobs.
final class QueueRunner: Sendable {
    let queue: String
    let limit: Int
    let core: WorkerPool.Core
    let stop: StopSignal
    let bell = Doorbell()
    private let inbox = Mutex(Inbox())

    private struct Inbox {
        var finished: [JobResolution] = []
        var running = 0
        /// Work may have arrived (an enqueue in this process, or start-up).
        var hint = true
    }

    init(queue: String, limit: Int, core: WorkerPool.Core, stop: StopSignal) {
        self.queue = queue
        self.limit = max(1, limit)
        self.core = core
        self.stop = stop
    }

    /// Work was enqueued to this queue in this process.
    func hint() {
        inbox.withLock { $0.hint = true }
        bell.ring()
    }

    func run() async {
        let metrics = QueueMetrics.forQueue(queue)
        let pollInterval = Duration.milliseconds(Int64(core.configuration.pollInterval * 1000))
        var lastPoll = ContinuousClock.now
        var lastClaimWasFull = true
        var failures = 0
        let linger = Duration.microseconds(Int64(core.configuration.linger * 1_000_000))
        while true {
            // When some jobs finished while others still run, give the others a moment (at most
            // `linger`) to finish too, so one write records several outcomes and claims several
            // jobs: short jobs then cost a fraction of a transaction each.
            let (pending, stillRunning) = inbox.withLock { ($0.finished.count, $0.running) }
            if pending > 0, stillRunning > 0 {
                await bell.wait(timeout: linger)
            }
            let (stopping, deadline) = stop.state
            let snapshot = inbox.withLock { inbox in
                defer {
                    inbox.finished.removeAll(keepingCapacity: true)
                    inbox.hint = false
                }
                return (finished: inbox.finished, running: inbox.running, hint: inbox.hint)
            }
            var finished = snapshot.finished
            let running = snapshot.running
            let hinted = snapshot.hint
            var releasing: [LeaseKey] = []
            var outOfTime = false
            if stopping {
                if running == 0 && finished.isEmpty { break }
                if Task.isCancelled || deadline.map({ ContinuousClock.now >= $0 }) ?? false {
                    // Out of time: give the remaining jobs back, then stop waiting for them.
                    outOfTime = true
                    releasing = core.running.leases(inQueue: queue)
                    finished += releasing.map { JobResolution(id: $0.id, attempt: $0.attempt, queue: queue, kind: "", action: .release) }
                    if finished.isEmpty { break }
                }
            }
            let free = stopping ? 0 : max(0, limit - running)
            let pollDue = ContinuousClock.now - lastPoll >= pollInterval
            let claimCount = free > 0 && (hinted || lastClaimWasFull || pollDue) ? min(free, core.configuration.claimBatch) : 0
            if finished.isEmpty && claimCount == 0 {
                var timeout: Duration?
                if stopping, let deadline {
                    timeout = max(.zero, deadline - ContinuousClock.now)
                } else if free > 0 {
                    timeout = max(.milliseconds(1), pollInterval - (ContinuousClock.now - lastPoll))
                }
                await bell.wait(timeout: timeout)
                continue
            }
            let now = core.clock.now()
            do {
                let (recorded, claimed) = try await core.store.finishAndClaim(
                    finished, queue: queue, limit: claimCount, worker: core.workerID, now: now,
                    leaseUntil: now.addingTimeInterval(core.configuration.leaseDuration)
                )
                failures = 0
                count(recorded, metrics: metrics)
                if claimCount > 0 {
                    lastPoll = ContinuousClock.now
                    lastClaimWasFull = claimed.count == claimCount
                }
                if outOfTime {
                    core.running.abandon(releasing)
                    if !releasing.isEmpty {
                        core.logger.warning(
                            "shutdown timeout: released running jobs back to the queue",
                            metadata: ["queue": "\(queue)", "jobs": "\(releasing.map(\.id))"]
                        )
                    }
                    break
                }
                start(claimed, metrics: metrics)
            } catch {
                failures += 1
                core.logger.error("job queue write failed", metadata: ["queue": "\(queue)", "error": "\(error)"])
                let retained = finished.filter { resolution in
                    if case .release = resolution.action { return false }
                    return true
                }
                inbox.withLock { $0.finished.insert(contentsOf: retained, at: 0) }
                if outOfTime {
                    core.running.abandon(releasing)
                    break
                }
                try? await Task.sleep(for: .milliseconds(min(2000, 50 << min(failures, 6))))
            }
        }
        metrics.running.record(0)
    }

    private func start(_ jobs: [ClaimedJob], metrics: QueueMetrics) {
        guard !jobs.isEmpty else { return }
        let running = inbox.withLock { inbox in
            inbox.running += jobs.count
            return inbox.running
        }
        metrics.running.record(running)
        for job in jobs {
            core.running.add(job)
            let task = Task { [self] in
                let resolution = await core.executor.execute(job)
                finish(resolution)
            }
            core.running.attach(task, to: LeaseKey(id: job.id, attempt: job.attempt))
        }
    }

    private func finish(_ resolution: JobResolution) {
        core.running.remove(LeaseKey(id: resolution.id, attempt: resolution.attempt))
        inbox.withLock { inbox in
            inbox.finished.append(resolution)
            inbox.running -= 1
        }
        bell.ring()
    }

    private func count(_ recorded: [FinishedJob], metrics: QueueMetrics) {
        guard !recorded.isEmpty else { return }
        var completed = 0
        for item in recorded {
            switch item.state {
            case .completed: completed += 1
            case .retryable: metrics.failed.increment()
            case .discarded:
                metrics.failed.increment()
                metrics.discarded.increment()
                core.logger.error(
                    "job discarded after its last attempt",
                    metadata: ["job": "\(item.resolution.id)", "kind": "\(item.resolution.kind)"]
                )
            case .cancelled: metrics.cancelled.increment()
            case nil:
                if case .release = item.resolution.action { break }
                metrics.leaseLost.increment()
                core.logger.warning(
                    "job outcome ignored: the worker no longer held its lease",
                    metadata: ["job": "\(item.resolution.id)", "kind": "\(item.resolution.kind)"]
                )
            default: break
            }
        }
        if completed > 0 { metrics.completed.increment(by: completed) }
        metrics.running.record(inbox.withLock { $0.running })
    }
}

/// A worker pool's stop request: set once, with the moment running jobs must be released by.
final class StopSignal: Sendable {
    private let value = Mutex<(stopping: Bool, deadline: ContinuousClock.Instant?)>((false, nil))

    var state: (stopping: Bool, deadline: ContinuousClock.Instant?) { value.withLock { $0 } }

    /// Returns false when already stopping.
    @discardableResult
    func request(timeout: TimeInterval) -> Bool {
        value.withLock { value in
            guard !value.stopping else { return false }
            value = (true, ContinuousClock.now.advanced(by: .milliseconds(Int64(max(0, timeout) * 1000))))
            return true
        }
    }
}
