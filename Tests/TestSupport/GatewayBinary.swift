public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Runs the real `gateway` executable built next to the test bundle.
public enum GatewayBinary {
    /// The port a child `gateway serve --port-file` wrote once it listens (the file is renamed
    /// into place, never half written); nil when the child exits or `timeout` passes first.
    /// Blocking: call it off Swift's concurrency threads (``ServingGateway/started(arguments:environment:lifetime:startTimeout:)``).
    public static func port(writtenTo portFile: String, by process: TestProcess, within timeout: TimeInterval) -> Int? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.isRunning {
            if let port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }), port > 0 {
                return port
            }
            usleep(20_000)
        }
        return nil
    }

    public static var url: URL { BuiltProducts.url("gateway") }

    public struct Outcome: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs the binary to completion with `stdin` as input; it is killed after `timeout`
    /// seconds (a hung command fails its test instead of hanging the suite). The blocking wait
    /// runs on a Dispatch thread: a test waiting for a child never holds one of Swift's
    /// concurrency threads (two such waits would stop every other test, and any stand-in in
    /// this process the child is talking to).
    public static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil, timeout: TimeInterval = 120
    ) async throws -> Outcome {
        try await Drill.offThread {
            try runBlocking(arguments, stdin: stdin, environment: environment, directory: directory, timeout: timeout)
        }
    }

    /// ``run(_:stdin:environment:directory:timeout:)`` on the calling thread: for code that is
    /// already off Swift's concurrency threads.
    public static func runBlocking(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], directory: URL? = nil, timeout: TimeInterval = 120
    ) throws -> Outcome {
        let process = TestProcess()
        process.executableURL = url
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let watchdog = Watchdog(process, seconds: timeout)
        defer { watchdog.cancel() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self)
        )
    }
}

/// A `gateway serve` child process on a loopback port.
/// It binds port 0 and reports the port the system chose in a file (`--port-file`), so no
/// port is reserved and released first (another process could take it in between). It is
/// killed after `lifetime` seconds at the latest.
public final class ServingGateway: @unchecked Sendable {
    public struct NotServing: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let process = TestProcess()
    public let port: Int
    private let watchdog: Watchdog

    /// With `output`, the child's standard output and error are written to `output/stdout` and
    /// `output/stderr` (else discarded).
    public init(
        arguments: [String], environment: [String: String] = [:], lifetime: TimeInterval = 300, startTimeout: TimeInterval = 60,
        output: URL? = nil
    ) throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-port-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: portFile) }
        process.executableURL = GatewayBinary.url
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--port-file", portFile, "--log-level", "error"] + arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        if let output {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            for name in ["stdout", "stderr"] {
                FileManager.default.createFile(atPath: output.appendingPathComponent(name).path, contents: nil)
            }
            process.standardOutput = try FileHandle(forWritingTo: output.appendingPathComponent("stdout"))
            process.standardError = try FileHandle(forWritingTo: output.appendingPathComponent("stderr"))
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        watchdog = Watchdog(process, seconds: lifetime)
        guard let found = GatewayBinary.port(writtenTo: portFile, by: process, within: startTimeout) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            watchdog.cancel()
            throw NotServing(description: "gateway serve did not report a listening port within \(Int(startTimeout)) s")
        }
        port = found
    }

    /// GET a path on the child; nil when it does not answer.
    public func get(_ path: String) async -> (Int, String)? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.timeoutInterval = 2
        guard let (data, response) = try? await URLSession.shared.data(for: request),
            let http = response as? HTTPURLResponse
        else { return nil }
        return (http.statusCode, String(decoding: data, as: UTF8.self))
    }

    /// Waits until `/healthz` answers, up to `seconds`.
    public func waitUntilServing(seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let (status, _) = await get("/healthz"), status == 200 { return true }
            if !process.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    public func terminate() -> Int32 {
        defer { watchdog.cancel() }
        return process.terminateAndWait()
    }

    public func kill9() { process.killAndWait() }
}

extension ServingGateway {
    /// Starts `gateway serve` as ``init(arguments:environment:lifetime:startTimeout:)`` does, its
    /// blocking wait for the port on a Dispatch thread: a test waiting for a child must never hold
    /// one of Swift's concurrency threads (two such waits would stop every other test, and any
    /// stand-in in this process the child is talking to).
    public static func started(
        arguments: [String], environment: [String: String] = [:], lifetime: TimeInterval = 300, startTimeout: TimeInterval = 60,
        output: URL? = nil
    ) async throws -> ServingGateway {
        try await Drill.offThread {
            try ServingGateway(arguments: arguments, environment: environment, lifetime: lifetime, startTimeout: startTimeout, output: output)
        }
    }
}

