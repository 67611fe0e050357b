import Foundation
import Synchronization

/// The jobs running in this process, with their tasks, so leases can be renewed and running
/// jobs cancelled (shutdown, lost lease, admin cancel).
final class RunningJobs: Sendable {
    struct Entry: Sendable {
        let key: LeaseKey
        let queue: String
        var task: Task<Void, Never>?
        /// Until when this process knows the lease holds (milliseconds).
        var leaseUntilMs: Int64
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    func add(_ job: ClaimedJob) {
        entries.withLock {
            $0[job.id] = Entry(key: LeaseKey(id: job.id, attempt: job.attempt), queue: job.queue, leaseUntilMs: job.leaseUntilMs)
        }
    }

    /// Attaches the task once created (the job may already have finished: then nothing).
    func attach(_ task: Task<Void, Never>, to key: LeaseKey) {
        entries.withLock { entries in
            if entries[key.id]?.key == key { entries[key.id]?.task = task }
        }
    }

    func remove(_ key: LeaseKey) {
        entries.withLock { entries in
            if entries[key.id]?.key == key { entries.removeValue(forKey: key.id) }
        }
    }

    var leases: [LeaseKey] { entries.withLock { $0.values.map(\.key) } }

    func leases(inQueue queue: String) -> [LeaseKey] {
        entries.withLock { $0.values.filter { $0.queue == queue }.map(\.key) }
    }

    func contains(_ id: Int64) -> Bool { entries.withLock { $0[id] != nil } }

    /// Records renewed leases; cancels (and forgets) the jobs whose lease is gone, and those
    /// whose last known lease has expired by `nowMs` (renewal kept failing).
    func renewed(_ attempted: [LeaseKey], held: Set<Int64>?, untilMs: Int64, nowMs: Int64) -> [LeaseKey] {
        var lost: [LeaseKey] = []
        let tasks: [Task<Void, Never>] = entries.withLock { entries in
            var tasks: [Task<Void, Never>] = []
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
                if let task = entry.task { tasks.append(task) }
                entries.removeValue(forKey: key.id)
            }
            return tasks
        }
        for task in tasks { task.cancel() }
        return lost
    }

    /// Cancels the job's task if it runs here.
    @discardableResult
    func cancel(id: Int64) -> Bool {
        let task = entries.withLock { $0[id]?.task }
        task?.cancel()
        return task != nil
    }

    /// Cancels and forgets the given jobs.
    func abandon(_ keys: [LeaseKey]) {
        let tasks: [Task<Void, Never>] = entries.withLock { entries in
            keys.compactMap { key in
                guard let entry = entries[key.id], entry.key == key else { return nil }
                entries.removeValue(forKey: key.id)
                return entry.task
            }
        }
        for task in tasks { task.cancel() }
    }
}
