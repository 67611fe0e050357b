public import Dispatch
import Foundation

extension DispatchSemaphore {
    /// Waits for a signal on a thread of its own, suspending the caller: an async test must not
    /// block one of Swift's few cooperative threads (two on a two-core machine), or two tests
    /// doing so at once leave no thread for the tasks that would signal them.
    public func waitOffThePool() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                self.wait()
                continuation.resume()
            }
        }
    }
}
