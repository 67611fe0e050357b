import Foundation
@testable import Storage
import Synchronization
import Testing
@testable import PostgresStorage

/// Shutdown's steps are waited for a bounded time: a step that ends is waited for, and a step
/// that never ends is left behind once its time is up.
@Suite("Bounded waits at shutdown")
struct BoundedWaitTests {
    @Test func aStepThatEndsIsWaitedFor() async {
        let done = Mutex(false)
        let finished = await BoundedWait.finishes(within: .seconds(30)) {
            try? await Task.sleep(for: .milliseconds(50))
            done.withLock { $0 = true }
        }
        #expect(finished)
        #expect(done.withLock { $0 })
    }

    @Test func aStepThatNeverEndsIsLeftBehindInTime() async {
        let started = ContinuousClock.now
        let finished = await BoundedWait.finishes(within: .milliseconds(200)) {
            // Ignores cancellation, like a close that waits on a server that never answers.
            await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
        }
        #expect(!finished)
        // Left behind, not waited for. (Generous: on a loaded 2-core machine other suites' blocking
        // waits can hold the concurrency pool's threads for many seconds.)
        #expect(started.duration(to: .now) < .seconds(120))
    }
}
