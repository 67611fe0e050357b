import Synchronization

/// Wakes one waiting task. A ring while nobody waits is remembered, so no wake-up is lost.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func ring() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            if let waiter = s.waiter {
                s.waiter = nil
                return waiter
            }
            s.rung = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next ring (or at once if rung since the last wait), when `timeout`
    /// elapses, or when the task is cancelled. One waiter at a time.
    func wait(timeout: Duration?) async {
        if state.withLock({ s in
            let rung = s.rung
            s.rung = false
            return rung
        }) { return }
        let timer: Task<Void, Never>? = timeout.map { timeout in
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { self?.ring() }
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = state.withLock { s in
                    if s.rung {
                        s.rung = false
                        return true
                    }
                    s.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
        timer?.cancel()
    }
}
