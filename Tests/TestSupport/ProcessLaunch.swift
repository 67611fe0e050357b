public import Foundation
import Synchronization

/// Starts child processes one at a time. Foundation's `Process.run()` on Linux is not safe to
/// call from several threads at once: concurrent launches from parallel tests crashed the test
/// process (signal 11, a `memmove` inside `Process.run()`, seen in CI and once locally).
public enum ProcessLaunch {
    private static let lock = Mutex<Void>(())

    /// `process.run()`, never at the same time as another launch through here.
    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}
