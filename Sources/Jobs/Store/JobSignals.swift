package import Synchronization

/// In-process wake-ups: when a transaction that enqueued jobs commits, the worker pools of this
/// process hear about it at once instead of at their next poll. A hint only: pools still poll.
/// On SQLite that poll is how they learn of jobs enqueued by other processes; on PostgreSQL,
/// `NOTIFY` rings every instance's signals (``PostgresJobDoorbell``). One per job system
/// (``JobsRuntime``), shared by its enqueuer, its schedules and its workers.
public final class JobSignals: Sendable {
    public init() {}

    package struct State {
        package var listeners: [Int: @Sendable (String) -> Void] = [:]
        package var nextID = 0
        /// Queues enqueued to by each connection's open transaction.
        package var pending: [ObjectIdentifier: Set<String>] = [:]
    }

    package let state = Mutex(State())

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

    package func notify(_ queue: String) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener(queue) }
    }
}

/// Where wake-ups from other processes come from (PostgreSQL's `LISTEN`): the worker pool runs
/// ``listen(ringing:)`` while it works and cancels it when it stops.
public protocol JobSignalSource: Sendable {
    /// Rings `signals` with each queue another process enqueued to, until cancelled.
    func listen(ringing signals: JobSignals) async
}
