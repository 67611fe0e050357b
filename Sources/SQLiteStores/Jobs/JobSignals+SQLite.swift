import GRDB
public import Jobs
import Synchronization

extension JobSignals {
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
}
