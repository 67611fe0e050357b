public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process for the tests, started with `posix_spawn`: the parts of Foundation's
/// `Process` the tests use, without its launch code.
///
/// Foundation's `Process.run()` on Linux (swift-corelibs-foundation before #5472, so Swift
/// 6.3.1) lists `/proc/self/fd` to close every other descriptor in the child, copying 256 bytes
/// of each entry's name. With many descriptors open (a parallel test run) the last entry can
/// sit at the end of glibc's readdir buffer, and the copy crosses into an unmapped page: signal
/// 11 in the test process (CI at stops 29 and 30, and a fresh clone here). Tuning the allocator
/// made it rarer, not impossible. Here the child closes every descriptor from 3 up with
/// `posix_spawn_file_actions_addclosefrom_np` instead, and no directory is listed.
///
/// The child starts with an empty signal mask and SIGTERM and SIGPIPE at their defaults (the
/// spawning thread may block them). Standard streams take a `Pipe`, a `FileHandle`
/// (`FileHandle.nullDevice` is /dev/null), or nil for /dev/null.
public final class TestProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's environment; nil inherits this process's.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    private let state = Mutex<(pid: pid_t, exit: Int32?)>((0, nil))

    public init() {}

    public var processIdentifier: pid_t { state.withLock { $0.pid } }

    /// Starts the child. Throws when it could not be started (a missing executable included).
    public func run() throws {
        guard let path = executableURL?.path else { throw TestProcessError(message: "no executable") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentCloses: [FileHandle] = []
        for (target, stream, reading) in [(Int32(0), standardInput, true), (1, standardOutput, false), (2, standardError, false)] {
            switch stream {
            case let pipe as Pipe:
                let childEnd = reading ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                if !parentCloses.contains(where: { $0 === childEnd }) { parentCloses.append(childEnd) }
            case let handle as FileHandle where handle !== FileHandle.nullDevice && handle.fileDescriptor >= 0:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", reading ? O_RDONLY : O_WRONLY, 0)
            }
        }
        if let directory = currentDirectoryURL?.path {
            guard let addchdir = Self.addChdir else { throw TestProcessError(message: "posix_spawn_file_actions_addchdir_np is missing") }
            _ = directory.withCString { addchdir(&actions, $0) }
        }
        guard let closeFrom = Self.addCloseFrom else { throw TestProcessError(message: "posix_spawn_file_actions_addclosefrom_np is missing") }
        _ = closeFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let result = envp.map { envp in posix_spawn(&pid, path, &actions, &attributes, argv, envp) }
            ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        // The child's ends of pipes, closed here through their handles (which then never
        // close the number again), so reading to the end sees the child's end.
        for handle in parentCloses { try? handle.close() }
        guard result == 0 else { throw TestProcessError(message: "could not start \(path): \(String(cString: strerror(result)))") }
        state.withLock { $0 = (pid, nil) }
    }

    /// Reaps the child if it has ended; its exit status from then on.
    private func poll() -> Int32? {
        state.withLock { state in
            if let exit = state.exit { return exit }
            guard state.pid > 0 else { return nil }
            var status: Int32 = 0
            let reaped = waitpid(state.pid, &status, WNOHANG)
            guard reaped == state.pid else {
                if reaped < 0, errno == ECHILD { state.exit = -1 }
                return state.exit
            }
            // Exited: its code; killed: the signal's number, as Foundation answers.
            state.exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : status & 0x7f
            return state.exit
        }
    }

    public var isRunning: Bool { processIdentifier > 0 && poll() == nil }

    /// Blocks until the child ends (polling, so another thread's `isRunning` can't race it).
    public func waitUntilExit() {
        while processIdentifier > 0, poll() == nil { usleep(5_000) }
    }

    /// The exit code, or the number of the signal that ended the child.
    public var terminationStatus: Int32 { poll() ?? 0 }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// SIGTERM, then waits for the exit; the exit status.
    @discardableResult
    public func terminateAndWait() -> Int32 {
        terminate()
        waitUntilExit()
        return terminationStatus
    }

    /// SIGKILL (no shutdown at all), then reaps the child.
    public func killAndWait() {
        signal(SIGKILL)
        waitUntilExit()
    }

    /// Sends `signal` while the child runs.
    public func signal(_ signal: Int32) {
        if isRunning { _ = kill(processIdentifier, signal) }
    }

    private typealias FileActionWithInt = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias FileActionWithPath = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np` (not in the Glibc module).
    private static let addCloseFrom: FileActionWithInt? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: FileActionWithInt.self) }
    /// glibc 2.29's `posix_spawn_file_actions_addchdir_np`.
    private static let addChdir: FileActionWithPath? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: FileActionWithPath.self) }
}

/// A child process could not be started.
public struct TestProcessError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "test process: \(message)" }
}
