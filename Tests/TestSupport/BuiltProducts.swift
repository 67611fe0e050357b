public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The executables this package builds (`gateway`, `gradebook-sim`), found next to the test
/// bundle, for the suites that run them as child processes.
public enum BuiltProducts {
    public static func url(_ name: String) -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// A child process that would not start.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }
}

/// Kills a child process that outlives its time limit.
public final class Watchdog: @unchecked Sendable {
    private let item: DispatchWorkItem

    public init(_ process: TestProcess, seconds: TimeInterval) {
        item = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
    }

    public func cancel() { item.cancel() }
}
