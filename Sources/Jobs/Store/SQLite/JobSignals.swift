import GRDB
import Synchronization

/// In-process wake-ups: when a transaction that enqueued jobs commits, the worker pools of this
/// process hear about it at once instead of at their next poll. A hint only: pools still poll,
/// which is how they learn about jobs enqueued by other processes. One per job system
/// (``JobsRuntime``), shared by its enqueuer, its schedules and its workers.
public final class JobSignals: Sendable {
    public init() {}

    private struct State {
        var listeners: [Int: @Sendable (String) -> Void] = [:]
        var nextID = 0
        /// Queues enqueued to by each connection's open transaction.
        var pending: [ObjectIdentifier: Set<String>] = [:]
    }

    private let state = Mutex(State())

    /// Calls `listener` with a queue's name whenever jobs were enqueued to it; returns a token
    /// for ``removeListener(_:)``.
    public func addListener(_ listener: @escaping @Sendable (String) -> Void) -> Int {
        state.withLock { s in
            s.nextID += 1
            s.listeners[s.nextID] = listener
            return s.nextID
        }
    }

    public func removeListener(_ token: Int) {
        _ = state.withLock { $0.listeners.removeValue(forKey: token) }
    }

    /// Notes an enqueue; listeners hear of it when `db`'s transaction commits.
    func enqueued(queue: String, in db: Database) {
        guard db.isInsideTransaction else {
            notify(queue)
            return
        }
        let connection = ObjectIdentifier(db)
        let first: Bool = state.withLock { s in
            guard !s.listeners.isEmpty else { return false }
            if s.pending[connection] != nil {
                s.pending[connection]!.insert(queue)
                return false
            }
            s.pending[connection] = [queue]
            return true
        }
        guard first else { return }
        db.afterNextTransaction(
            onCommit: { _ in
                let queues = self.state.withLock { $0.pending.removeValue(forKey: connection) } ?? []
                for queue in queues { self.notify(queue) }
            },
            onRollback: { _ in _ = self.state.withLock { $0.pending.removeValue(forKey: connection) } }
        )
    }

    func notify(_ queue: String) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener(queue) }
    }
}
