import CoreMetrics
import Synchronization

/// What a queue's fetcher/completer loop and its workers share.
struct QueueInbox {
    /// Outcomes not recorded yet, in the order they finished.
    var finished: [JobResolution] = []
    /// Claimed jobs waiting for a worker, in claim order, from `head`.
    private var buffer: [ClaimedJob] = []
    private var head = 0
    /// Worker tasks alive (each runs a job or is about to take one).
    var workers = 0
    /// Work may have arrived (an enqueue in this process, or start-up).
    var hint = true
    /// The loop sleeps out its pacing interval: ringing would not wake it.
    var pacing = false

    var buffered: Int { buffer.count - head }

    mutating func append(_ jobs: [ClaimedJob]) { buffer += jobs }

    mutating func pop() -> ClaimedJob? {
        guard head < buffer.count else { return nil }
        let job = buffer[head]
        head += 1
        if head == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 {
            buffer.removeFirst(head)
            head = 0
        }
        return job
    }

    mutating func takeBuffer() -> [ClaimedJob] {
        defer {
            buffer.removeAll()
            head = 0
        }
        return Array(buffer[head...])
    }
}

extension QueueRunner {
    /// Takes in claimed jobs (their leases are ours) and starts workers for them.
    func accept(_ jobs: [ClaimedJob]) {
        guard !jobs.isEmpty else { return }
        // Known to the lease renewal (and to cancellation) before any worker can take them.
        core.running.add(jobs)
        inbox.withLock { $0.append(jobs) }
        startWorkers()
    }

    /// Starts workers while jobs wait and fewer than `limit` run.
    func startWorkers() {
        let count = inbox.withLock { inbox in
            let count = max(0, min(limit - inbox.workers, inbox.buffered))
            inbox.workers += count
            return count
        }
        guard count > 0 else { return }
        metrics.running.record(inbox.withLock { $0.workers })
        for _ in 0..<count {
            let handle = TaskHandle()
            handle.set(Task { [self] in await work(handle) })
        }
    }

    /// One worker: runs buffered jobs one after another until none waits, or until its task is
    /// cancelled (it stops after the job it was cancelled in; the loop starts another).
    private func work(_ handle: TaskHandle) async {
        let task = await handle.task()
        var outcome: JobResolution?
        var retiring = false
        while let job = exchange(outcome, retiring: retiring) {
            outcome = nil
            let key = LeaseKey(id: job.id, attempt: job.attempt)
            // Cancelled, or its lease found lost, while it waited: not run, nothing to record.
            guard core.running.begin(key, task: task) else { continue }
            let resolution = await core.executor.execute(job, metrics: metrics)
            core.running.remove(key)
            outcome = resolution
            retiring = Task.isCancelled
        }
    }

    /// Hands in a worker's outcome and gives it its next job; nil retires the worker. Unless the
    /// loop is pacing (it wakes by itself then), wakes it for the first outcome since its last
    /// write and when a worker retires (a slot is free: time to claim).
    private func exchange(_ outcome: JobResolution?, retiring: Bool) -> ClaimedJob? {
        let (next, ring) = inbox.withLock { inbox -> (ClaimedJob?, Bool) in
            var ring = false
            if let outcome {
                inbox.finished.append(outcome)
                ring = inbox.finished.count == 1 && !inbox.pacing
            }
            // A worker beyond a lowered limit retires after its job.
            let next = retiring || inbox.workers > limit ? nil : inbox.pop()
            if next == nil {
                inbox.workers -= 1
                ring = ring || !inbox.pacing
            }
            return (next, ring)
        }
        if ring { bell.ring() }
        return next
    }
}

/// A task's handle, set by whoever created the task, awaited by the task itself.
final class TaskHandle: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var waiter: CheckedContinuation<Task<Void, Never>, Never>?
    }

    private let state = Mutex(State())

    func set(_ task: Task<Void, Never>) {
        let waiter = state.withLock { state in
            state.task = task
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: task)
    }

    func task() async -> Task<Void, Never> {
        if let task = state.withLock({ $0.task }) { return task }
        return await withCheckedContinuation { continuation in
            let task = state.withLock { state -> Task<Void, Never>? in
                if let task = state.task { return task }
                state.waiter = continuation
                return nil
            }
            if let task { continuation.resume(returning: task) }
        }
    }
}
