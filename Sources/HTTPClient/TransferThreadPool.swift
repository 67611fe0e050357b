import Foundation

/// A fixed set of dedicated OS threads that run blocking jobs (here: `curl_easy_perform`).
///
/// Blocking calls must never run on Swift's cooperative pool (which has one thread per core
/// and would stall every task) nor on an event loop. This pool owns `threadCount` Foundation
/// threads, each with a private `Worker` value created on that thread and handed to every job
/// that runs there (one reusable curl easy handle per thread, which keeps its connections
/// alive between requests). Jobs wait in a FIFO queue until a thread is free.
///
/// `Worker` never leaves its thread, so it does not need to be `Sendable`.
///
/// `@unchecked Sendable`: the only mutable state (`queue`, `isShutDown`) is read and written
/// exclusively while holding `condition`, which also provides the wake-up signalling. The other
/// stored properties are immutable.
final class TransferThreadPool<Worker>: @unchecked Sendable {
    typealias Job = @Sendable (inout Worker) -> Void

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var queueHead = 0
    private var isShutDown = false

    /// Number of threads in the pool.
    let threadCount: Int

    /// Starts `threadCount` threads, each of which calls `makeWorker` once, on itself.
    init(threadCount: Int, name: String, makeWorker: @escaping @Sendable () -> Worker) {
        precondition(threadCount > 0, "TransferThreadPool needs at least one thread")
        self.threadCount = threadCount
        for index in 0..<threadCount {
            // The thread keeps the pool alive until it exits, i.e. until `shutdown()` has been
            // called and the queue has drained.
            let thread = Thread { [self] in
                var worker = makeWorker()
                while let job = self.nextJob() {
                    job(&worker)
                }
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Enqueues `job`. Returns `false` (and drops the job) if the pool has been shut down.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isShutDown else { return false }
        queue.append(job)
        condition.signal()
        return true
    }

    /// Stops accepting jobs. Jobs already queued still run; then the threads exit.
    /// Does not block. Calling it more than once is harmless.
    func shutdown() {
        condition.lock()
        isShutDown = true
        condition.broadcast()
        condition.unlock()
    }

    /// Number of jobs waiting for a thread (not counting running ones).
    var pendingJobCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count - queueHead
    }

    /// Blocks the calling pool thread until there is a job, or returns `nil` when the pool is
    /// shut down and drained.
    private func nextJob() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while queueHead == queue.count {
            if isShutDown { return nil }
            condition.wait()
        }
        let job = queue[queueHead]
        queueHead += 1
        // Compact occasionally so the array does not grow without bound.
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead >= 64 && queueHead * 2 >= queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return job
    }
}
