#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, output discarded.
///
/// Foundation's `Process` is avoided on purpose: its `waitUntilExit()` spins a run loop on the
/// calling (cooperative) thread, and children inherit the blocked signal mask of the spawning
/// dispatch thread, so SIGTERM may be ignored. Here the signal mask is reset, termination is
/// SIGKILL, and waiting polls `waitpid(WNOHANG)` with `Task.sleep`, so nothing blocks a thread.
struct ChildProcess: Sendable {
    let pid: pid_t

    /// Starts `path` with `arguments` (not including argv[0]), in `workingDirectory` if given
    /// (through `/bin/sh`, which `exec`s `path`, so the pid is still that of `path`).
    /// With `outputPath`, standard output goes to that file (created or truncated).
    static func spawn(
        _ path: String, _ arguments: [String], workingDirectory: String? = nil, outputPath: String? = nil
    ) throws -> ChildProcess {
        if let workingDirectory {
            return try spawn(
                "/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", workingDirectory, path] + arguments, outputPath: outputPath
            )
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGTERM)
        sigaddset(&defaultSignals, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw ChildProcessError(message: "posix_spawn \(path) failed: \(result)") }
        return ChildProcess(pid: pid)
    }

    /// Waits (without blocking a thread) for the process to exit; returns its exit status,
    /// or kills it and throws after `timeout`.
    @discardableResult
    func wait(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return (status >> 8) & 0xFF }
            if reaped < 0 { throw ChildProcessError(message: "waitpid failed: \(errno)") }
            if ContinuousClock.now > deadline {
                kill()
                throw ChildProcessError(message: "process \(pid) did not exit in time")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Kills the process with SIGKILL and reaps it (synchronously; SIGKILL is immediate).
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
