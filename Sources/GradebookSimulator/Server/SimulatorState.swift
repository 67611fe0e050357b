import Synchronization

/// The simulator's mutable state (data, fault, request counts) behind one lock, shared by every
/// copy of a ``GradebookSimulator``.
final class SimulatorState: Sendable {
    struct Store {
        var data: SimulatorData
        var fault: SimulatorFault = .none
        var counts = SimulatorRequestCounts()
    }

    /// What ``reset()`` restores.
    let initial: SimulatorData
    private let store: Mutex<Store>

    init(data: SimulatorData) {
        initial = data
        store = Mutex(Store(data: data))
    }

    var data: SimulatorData { store.withLock { $0.data } }
    var fault: SimulatorFault { store.withLock { $0.fault } }
    var counts: SimulatorRequestCounts { store.withLock { $0.counts } }

    /// Counts a protocol request of this kind and takes one use of the current fault: answers the
    /// fault to apply to it (``SimulatorFault/Mode/none`` for none).
    func begin(kind: String, faultable: Bool = true) -> SimulatorFault {
        store.withLock { store in
            store.counts.total += 1
            store.counts.byKind[kind, default: 0] += 1
            guard faultable, store.fault.mode != .none else { return .none }
            let applied = store.fault
            if let remaining = store.fault.remaining {
                store.fault = remaining <= 1 ? .none : SimulatorFault(
                    mode: applied.mode, delayMs: applied.delayMs, remaining: remaining - 1
                )
            }
            return applied
        }
    }

    func setFault(_ fault: SimulatorFault) {
        store.withLock { $0.fault = fault.mode == .none ? .none : fault }
    }

    /// Restores the initial data and clears the fault and the counts.
    func reset() {
        store.withLock { $0 = Store(data: initial) }
    }

    /// Changes the data under the lock.
    func update<T: Sendable, E: Error>(_ body: (inout SimulatorData) throws(E) -> T) throws(E) -> T {
        try store.withLock { (store: inout Store) throws(E) -> T in try body(&store.data) }
    }
}
