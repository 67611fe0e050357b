import Foundation
import Synchronization

/// The jobs this process holds a lease on: those running (with the task that runs them) and those
/// claimed ahead, waiting in a queue's buffer for a free worker. Leases of both are renewed; a
/// job can be cancelled (shutdown, lost lease, admin cancel) wherever it is.
///
/// A worker task runs several jobs one after another, so a task is cancelled only while it runs
/// the job the cancellation is meant for: ``begin(_:task:)``, ``remove(_:)`` and every
/// cancellation happen under one lock, and a worker whose task was cancelled stops after the
/// job it runs.
final class RunningJobs: Sendable {
    struct Entry: Sendable {
        let key: LeaseKey
        let queue: String
        /// The task running the job; nil while the job waits in a buffer.
        var task: Task<Void, Never>?
        /// Cancelled while waiting in a buffer: never started.
        var cancelled = false
        /// Until when this process knows the lease holds (milliseconds).
        var leaseUntilMs: Int64
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    /// Notes a claimed job (not started yet).
    func add(_ job: ClaimedJob) {
        entries.withLock {
            $0[job.id] = Entry(key: LeaseKey(id: job.id, attempt: job.attempt), queue: job.queue, leaseUntilMs: job.leaseUntilMs)
        }
    }

    /// Notes claimed jobs (not started yet).
    func add(_ jobs: [ClaimedJob]) {
        entries.withLock { entries in
            for job in jobs {
                entries[job.id] = Entry(key: LeaseKey(id: job.id, attempt: job.attempt), queue: job.queue, leaseUntilMs: job.leaseUntilMs)
            }
        }
    }

    /// `task` starts running the job. False when the job must not run: it was cancelled, or its
    /// lease was found lost, while it waited (it is forgotten then).
    func begin(_ key: LeaseKey, task: Task<Void, Never>) -> Bool {
        entries.withLock { entries in
            guard let entry = entries[key.id], entry.key == key else { return false }
            if entry.cancelled {
                entries.removeValue(forKey: key.id)
                return false
            }
            entries[key.id]?.task = task
            return true
        }
    }

    /// The job finished (or is given back): forgets it.
    func remove(_ key: LeaseKey) {
        entries.withLock { entries in
            if entries[key.id]?.key == key { entries.removeValue(forKey: key.id) }
        }
    }

    /// Forgets jobs that never started.
    func remove(_ keys: [LeaseKey]) {
        entries.withLock { entries in
            for key in keys where entries[key.id]?.key == key { entries.removeValue(forKey: key.id) }
        }
    }

    var leases: [LeaseKey] { entries.withLock { $0.values.map(\.key) } }

    /// The leases of `queue`'s jobs that run (not those waiting in a buffer).
    func leases(inQueue queue: String) -> [LeaseKey] {
        entries.withLock { $0.values.filter { $0.queue == queue && $0.task != nil }.map(\.key) }
    }

    func contains(_ id: Int64) -> Bool { entries.withLock { $0[id] != nil } }

    /// Records renewed leases; cancels (and forgets) the jobs whose lease is gone, and those
    /// whose last known lease has expired by `nowMs` (renewal kept failing).
    func renewed(_ attempted: [LeaseKey], held: Set<Int64>?, untilMs: Int64, nowMs: Int64) -> [LeaseKey] {
        entries.withLock { entries in
            var lost: [LeaseKey] = []
            for key in attempted {
                guard var entry = entries[key.id], entry.key == key else { continue }
                if let held {
                    if held.contains(key.id) {
                        entry.leaseUntilMs = untilMs
                        entries[key.id] = entry
                        continue
                    }
                } else if entry.leaseUntilMs > nowMs {
                    continue
                }
                lost.append(key)
                // Under the lock: the task still runs this job (see the type's comment).
                entry.task?.cancel()
                entries.removeValue(forKey: key.id)
            }
            return lost
        }
    }

    /// Cancels the job where it runs here, or keeps it from starting if it waits in a buffer.
    /// Returns whether this process held it.
    @discardableResult
    func cancel(id: Int64) -> Bool {
        entries.withLock { entries in
            guard let entry = entries[id] else { return false }
            if let task = entry.task {
                task.cancel()
            } else {
                entries[id]?.cancelled = true
            }
            return true
        }
    }

    /// Cancels and forgets the given jobs.
    func abandon(_ keys: [LeaseKey]) {
        entries.withLock { entries in
            for key in keys {
                guard let entry = entries[key.id], entry.key == key else { continue }
                entry.task?.cancel()
                entries.removeValue(forKey: key.id)
            }
        }
    }
}
