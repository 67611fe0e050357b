public import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// What the drills share: requests whose lack of an answer is an outcome (not an error), child
/// commands, and a PostgreSQL cluster of their own that they may stop and start again.
public enum Drill {
    /// One answer to a request.
    public struct Reply: Sendable {
        public let status: Int
        public let body: String
        public let contentType: String?
        public let retryAfter: String?

        public var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        /// A compatibility protocol's `{"ok": ...}` or `{"error": ...}`.
        public var ok: String? { object["ok"] as? String }
        public var error: String? { object["error"] as? String }
        public var isProblem: Bool { contentType?.hasPrefix("application/problem+json") == true }
        /// A 503 problem with `Retry-After`: the database can't take this right now.
        public var isUnavailableProblem: Bool { status == 503 && isProblem && retryAfter.flatMap(Int.init) != nil }
    }

    /// Enough connections for every load task at once; nothing cached or kept between runs.
    public static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    /// Sends one request to the loopback gateway on `port`; nil when no answer came (refused,
    /// reset, timed out): then whether it was done is unknown.
    public static func send(
        port: Int, _ method: String, _ path: String, body: String? = nil, token: String? = nil, headers: [String: String] = [:],
        timeout: TimeInterval = 10
    ) async -> Reply? {
        guard port > 0, let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        guard let (data, response) = try? await session.data(for: request), let http = response as? HTTPURLResponse else { return nil }
        return Reply(
            status: http.statusCode, body: String(decoding: data, as: UTF8.self),
            contentType: http.value(forHTTPHeaderField: "Content-Type"), retryAfter: http.value(forHTTPHeaderField: "Retry-After")
        )
    }

    /// A bearer token for `username`, or nil.
    public static func token(port: Int, _ username: String, _ password: String) async -> String? {
        await send(port: port, "POST", "/v1/auth/token", body: #"{"username":"\#(username)","password":"\#(password)"}"#)?.object["token"] as? String
    }

    /// Runs a command found on PATH to completion (stdout and stderr together), killed after
    /// `timeout` seconds. Blocking: call it through ``offThread(_:)`` from async code.
    public static func run(_ arguments: [String], timeout: TimeInterval = 120) throws -> (status: Int32, output: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = nil
        try process.run()
        let watchdog = Watchdog(process, seconds: timeout)
        defer { watchdog.cancel() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Blocking work (a child process, a server start) on a Dispatch thread, never on one of
    /// the few threads of the concurrency pool the load runs on.
    public static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await PostgresCluster.offThread(body)
    }

    /// Seconds since `start`, rounded to tenths.
    public static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds * 10).rounded() / 10
    }

    /// A fresh folder under the temporary directory.
    public static func scratchDirectory(_ label: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// A PostgreSQL cluster of one drill's own, made by `scripts/pg-cluster.sh` like the tests'
/// shared ``PostgresCluster``, which the drill may stop (`pg_ctl stop -m fast`) and start again
/// on the same data directory and port: the shared cluster must never be stopped under the
/// other suites. Not started with the script's `--watch` (that watcher removes the directory
/// as soon as the server stops): a watcher of its own removes it once this process is gone.
public final class ScratchPostgres: Sendable {
    public struct Failure: Error, CustomStringConvertible { public let description: String }

    public let directory: String
    public let url: String
    public let port: Int

    public static var script: String { PostgresCluster.script }

    /// The newest PostgreSQL's server programs, as the script finds them.
    public static var binaries: String? {
        if let bin = ProcessInfo.processInfo.environment["GATEWAY_PG_BIN"] { return bin }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap(Int.init).max().map { "/usr/lib/postgresql/\($0)/bin" }
    }

    /// Blocking; call through ``Drill/offThread(_:)``.
    public init() throws {
        directory = NSTemporaryDirectory() + "gateway-drill-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        let started = try Drill.run(["bash", Self.script, "start", directory])
        guard started.status == 0, let line = started.output.split(separator: "\n").last.map(String.init),
            let port = URLComponents(string: line)?.port
        else { throw Failure(description: "pg-cluster.sh start failed: \(started.output)") }
        url = line
        self.port = port
        // Removes the cluster once this test process is gone, however it ends.
        let watcher = TestProcess()
        watcher.executableURL = URL(fileURLWithPath: "/bin/bash")
        watcher.arguments = [
            "-c", "nohup bash -c \"while [ -d /proc/\(getpid()) ]; do sleep 1; done; '\(Self.script)' stop '\(directory)'\" >/dev/null 2>&1 </dev/null &",
        ]
        try watcher.run()
        watcher.waitUntilExit()
    }

    private var asOwner: [String] { getuid() == 0 ? ["runuser", "-u", "postgres", "--"] : [] }

    private func pgCtl(_ arguments: [String]) throws {
        guard let bin = Self.binaries else { throw Failure(description: "no PostgreSQL server programs") }
        let outcome = try Drill.run(asOwner + ["\(bin)/pg_ctl", "-D", "\(directory)/data"] + arguments)
        guard outcome.status == 0 else { throw Failure(description: "pg_ctl \(arguments.last ?? "") failed: \(outcome.output)") }
    }

    /// `pg_ctl stop -m fast`: every session is ended and the server shuts down cleanly.
    public func stop() throws {
        try pgCtl(["-m", "fast", "-w", "stop"])
    }

    /// Starts the server again on the same data directory, port and settings.
    public func startAgain() throws {
        let settings = "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories=\(directory) -c max_connections=300 -c shared_buffers=128MB "
            + "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        try pgCtl(["-l", "\(directory)/server.log", "-w", "-t", "30", "-o", settings, "start"])
    }

    /// A new, empty database; its URL.
    public func database(_ name: String) throws -> String {
        let made = try Drill.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "gateway", "-d", "postgres", "-c", "CREATE DATABASE \(name)"])
        guard made.status == 0 else { throw Failure(description: "CREATE DATABASE failed: \(made.output)") }
        return url.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }

    /// Rows of a query in database `name` through psql, each a list of its columns' text
    /// (NULL is empty). Blocking; call through ``Drill/offThread(_:)``.
    public func rows(_ query: String, database name: String) throws -> [[String]] {
        let ran = try Drill.run([
            "psql", "-X", "-q", "-t", "-A", "-F", "|", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "gateway", "-d", name, "-c", query,
        ])
        guard ran.status == 0 else { throw Failure(description: "psql failed: \(ran.output)") }
        return ran.output.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Stops the server and removes the directory.
    public func destroy() {
        _ = try? Drill.run(["bash", Self.script, "stop", directory])
    }
}

