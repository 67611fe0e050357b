import GatewayCore
import CoreMetrics
import Foundation
import Logging
import Synchronization

/// Works one queue in one process, as a fetcher/completer loop feeding up to `limit` worker
/// tasks (River's producer and batch completer, on one SQLite writer):
///
/// - each write is one transaction that records the outcomes finished since the last one, each
///   only if this process still holds that job's lease (a lost lease is counted, never recorded),
///   and claims the next jobs (with their leases);
/// - claimed jobs wait in a local buffer; a worker task runs them one after another (no task
///   per job, no wake-up per job) and hands each outcome back;
/// - a busy queue writes at most once per `linger` (unless a full batch of outcomes waits), so
///   short jobs share transactions; an idle queue claims as soon as work is hinted;
/// - it claims ahead (beyond the free workers) only about twice as many jobs as its workers got
///   through between the last two writes, at most `prefetch`: short jobs never wait for a write,
///   slow jobs are barely claimed ahead, so other processes still get their share.
final class QueueRunner: Sendable {
    let queue: String
    /// The concurrency configured for this queue here, used while no operator set one.
    let configuredLimit: Int
    /// How many jobs of this queue run at once here now: the operator's setting
    /// (`PATCH /v1/admin/queues/{name}`, read by ``Maintenance``) or `configuredLimit`.
    private let currentLimit: Atomic<Int>
    var limit: Int { currentLimit.load(ordering: .relaxed) }
    let core: WorkerPool.Core
    let stop: StopSignal
    let bell = Doorbell()
    let metrics: QueueMetrics
    let batch: Int
    let inbox = Mutex(QueueInbox())

    init(queue: String, limit: Int, core: WorkerPool.Core, stop: StopSignal) {
        self.queue = queue
        self.configuredLimit = max(1, limit)
        self.currentLimit = Atomic(max(1, limit))
        self.core = core
        self.stop = stop
        self.metrics = QueueMetrics.forQueue(queue)
        self.batch = max(1, core.configuration.claimBatch)
    }

    /// Changes how many jobs run at once; true when it changed. A lower limit retires workers as
    /// their jobs finish (running jobs are not interrupted); a higher one starts workers at once.
    @discardableResult
    func setLimit(_ newLimit: Int) -> Bool {
        let value = max(1, newLimit)
        let old = currentLimit.exchange(value, ordering: .relaxed)
        guard old != value else { return false }
        if value > old { hint() }
        return true
    }

    /// Jobs of this queue running here now (claimed ahead and waiting not counted).
    var running: Int { inbox.withLock { $0.workers } }

    /// Work was enqueued to this queue in this process.
    func hint() {
        // Only the first hint since the last write wakes the loop (an enqueue per transaction
        // must not cost the loop a wake-up each).
        let first = inbox.withLock { inbox in
            defer { inbox.hint = true }
            return !inbox.hint && !inbox.pacing
        }
        if first { bell.ring() }
    }

    func run() async {
        let config = core.configuration
        let pollInterval = Duration.milliseconds(Int64(config.pollInterval * 1000))
        let linger = Duration.microseconds(Int64(config.linger * 1_000_000))
        let prefetch = max(0, config.prefetch)
        var lastPoll = ContinuousClock.now
        var lastWrite: ContinuousClock.Instant?
        var lastClaimWasFull = true
        // Starts at one job ahead per worker; halves while few jobs finish between writes.
        var ahead = min(prefetch, limit)
        var failures = 0
        var bufferReleased = false
        while true {
            let (stopping, deadline) = stop.state
            if stopping && !bufferReleased {
                // Jobs claimed ahead have not started: give them back now.
                bufferReleased = true
                let waiting = inbox.withLock { $0.takeBuffer() }
                core.running.remove(waiting.map { LeaseKey(id: $0.id, attempt: $0.attempt) })
                let releases = waiting.map { JobResolution(id: $0.id, attempt: $0.attempt, queue: queue, kind: $0.kind, action: .release) }
                inbox.withLock { $0.finished += releases }
            }
            if !stopping { startWorkers() }
            let now = ContinuousClock.now
            let state = inbox.withLock { ($0.finished.count, $0.buffered, $0.workers, $0.hint) }
            let (pending, buffered, workers, hinted) = state
            var outOfTime = false
            if stopping {
                if workers == 0 && pending == 0 { break }
                outOfTime = Task.isCancelled || deadline.map { now >= $0 } ?? false
            }
            let free = stopping ? 0 : max(0, limit + ahead - workers - buffered)
            let claimWanted = free > 0 && (hinted || lastClaimWasFull || now - lastPoll >= pollInterval)
            if pending == 0 && !claimWanted && !outOfTime {
                var timeout: Duration?
                if stopping, let deadline {
                    timeout = max(.zero, deadline - now)
                } else if free > 0 {
                    timeout = max(.milliseconds(1), pollInterval - (now - lastPoll))
                }
                await bell.wait(timeout: timeout)
                continue
            }
            // Pace a busy queue: one write per `linger` collects the outcomes (and claims) of
            // every job that finished meanwhile. A plain sleep, not a doorbell wait with a timer
            // task: nothing but a full batch needs it sooner, and one rarely fills that fast.
            if !stopping, pending < batch, let lastWrite, now - lastWrite < linger {
                inbox.withLock { $0.pacing = true }
                try? await Task.sleep(for: linger - (now - lastWrite))
                inbox.withLock { $0.pacing = false }
                continue
            }
            let claiming = claimWanted && !outOfTime
            var finished = inbox.withLock { inbox in
                defer {
                    inbox.finished.removeAll(keepingCapacity: true)
                    // A hint is used up by a claim, not by a write that only records outcomes.
                    if claiming { inbox.hint = false }
                }
                return inbox.finished
            }
            var releasing: [LeaseKey] = []
            if outOfTime {
                // Out of time: give the running jobs back, then stop waiting for them.
                releasing = core.running.leases(inQueue: queue)
                finished += releasing.map { JobResolution(id: $0.id, attempt: $0.attempt, queue: queue, kind: "", action: .release) }
                if finished.isEmpty { break }
            }
            let claimCount = claiming ? min(free, batch) : 0
            let wallNow = core.clock.now()
            do {
                let (recorded, claimed) = try await core.store.finishAndClaim(
                    finished, queue: queue, limit: claimCount, worker: core.workerID, now: wallNow,
                    leaseUntil: wallNow.addingTimeInterval(config.leaseDuration)
                )
                lastWrite = ContinuousClock.now
                failures = 0
                count(recorded)
                if claimCount > 0 {
                    lastPoll = ContinuousClock.now
                    lastClaimWasFull = claimed.count == claimCount
                }
                // Claim ahead about what the workers get through between two writes.
                ahead = min(prefetch, max(ahead / 2, 2 * recorded.count))
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
                accept(claimed)
            } catch {
                lastWrite = ContinuousClock.now
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

    private func count(_ recorded: [FinishedJob]) {
        guard !recorded.isEmpty else { return }
        var completed: [String: Int] = [:]
        for item in recorded {
            switch item.state {
            case .completed: completed[item.resolution.kind, default: 0] += 1
            case .retryable: metrics.kind(item.resolution.kind).failed.increment()
            case .discarded:
                metrics.kind(item.resolution.kind).failed.increment()
                metrics.kind(item.resolution.kind).discarded.increment()
                core.logger.error(
                    "job discarded after its last attempt",
                    metadata: ["job": "\(item.resolution.id)", "kind": "\(item.resolution.kind)"]
                )
            case .cancelled: metrics.kind(item.resolution.kind).cancelled.increment()
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
        for (kind, count) in completed { metrics.kind(kind).completed.increment(by: count) }
        metrics.running.record(inbox.withLock { $0.workers })
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
