public import Storage
import Synchronization

/// Waits for work that talks to the server for at most a set time: closing connections at
/// shutdown must not hang a process that is stopping, whatever state a connection or the
/// server is in (a session the server is slow to end, a pool still connecting).
enum BoundedWait {
    /// Runs `operation` and waits for it at most `limit`: true when it finished in time.
    /// Work past its time goes on in the background, and nobody waits for it any more.
    static func finishes(within limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        let outcome = Outcome()
        return await withCheckedContinuation { continuation in
            outcome.install(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                outcome.settle(false)
            }
            Task {
                await operation()
                timer.cancel()
                outcome.settle(true)
            }
        }
    }

    /// The first of the operation and the timer to settle the wait.
    private final class Outcome: Sendable {
        private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

        func install(_ waiting: CheckedContinuation<Bool, Never>) {
            continuation.withLock { $0 = waiting }
        }

        func settle(_ finished: Bool) {
            let waiting = continuation.withLock { current in
                defer { current = nil }
                return current
            }
            waiting?.resume(returning: finished)
        }
    }
}
