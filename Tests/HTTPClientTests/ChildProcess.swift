import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A child process for these tests (an openssl server or command), output discarded unless
/// `outputPath` is given: `TestProcess` (posix_spawn, signal mask reset, descriptors from 3 up
/// closed in the child), waited for without blocking a thread of the concurrency pool.
struct ChildProcess: Sendable {
    let process: TestProcess

    var pid: pid_t { process.processIdentifier }

    /// Starts `path` with `arguments` (not including argv[0]), in `workingDirectory` if given.
    /// With `outputPath`, standard output goes to that file (created or truncated).
    static func spawn(
        _ path: String, _ arguments: [String], workingDirectory: String? = nil, outputPath: String? = nil
    ) throws -> ChildProcess {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = workingDirectory.map { URL(fileURLWithPath: $0) }
        if let outputPath {
            guard FileManager.default.createFile(atPath: outputPath, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: outputPath)
            else { throw ChildProcessError(message: "could not create \(outputPath)") }
            process.standardOutput = handle
        }
        do {
            try process.run()
        } catch {
            throw ChildProcessError(message: "\(error)")
        }
        return ChildProcess(process: process)
    }

    /// Waits (without blocking a thread) for the process to exit; returns its exit status,
    /// or kills it and throws after `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill()
                throw ChildProcessError(message: "process \(pid) did not exit in time")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// Kills the process with SIGKILL and reaps it.
    func kill() {
        process.signal(SIGKILL)
        process.waitUntilExit()
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
