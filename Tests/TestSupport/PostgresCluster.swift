import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for the tests of this process, started on first use by
/// `scripts/pg-cluster.sh` (initdb in a temporary folder, loopback only, a free port) and
/// stopped by that script's watchdog when this process ends. Each test gets a database of its
/// own (``database(_:)``), so tests run in parallel without seeing each other's rows.
public final class PostgresCluster: Sendable {
    /// The cluster's URL, at its `postgres` database.
    public let url: String
    let port: Int
    let directory: String

    private static let shared = Mutex<Task<PostgresCluster, any Error>?>(nil)

    /// The process's cluster, started on first use (tests that ask meanwhile wait for the same
    /// start). Fails (never skips) when PostgreSQL is missing: `make test` runs every backend.
    public static func start() async throws -> PostgresCluster {
        let starting = shared.withLock { task in
            if let task { return task }
            let directory = NSTemporaryDirectory() + "gateway-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
            let started = Task { try await offThread { try PostgresCluster(directory: directory) } }
            task = started
            return started
        }
        return try await starting.value
    }

    /// Runs blocking work (a child process) on a Dispatch thread, so that it never holds one of
    /// the few threads of Swift's concurrency pool that every other test shares.
    public static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    init(directory: String) throws {
        self.directory = directory
        let output = try Self.run([Self.script, "start", directory, "--watch", String(getpid())])
        guard let line = output.split(separator: "\n").last.map(String.init), let components = URLComponents(string: line),
            let port = components.port
        else { throw PostgresClusterError(message: "pg-cluster.sh printed no URL: \(output)") }
        url = line
        self.port = port
    }

    /// A new, empty database named after `label` (and made unique); returns its URL.
    public func database(_ label: String = "test") async throws -> String {
        let safe = label.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20)
        let name = "\(safe)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        try await Self.offThread { try self.sql("CREATE DATABASE \(name)") }
        return url.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }

    /// Runs SQL through psql against the `postgres` database (for setup only; it blocks, so
    /// call it through ``offThread(_:)`` from async code).
    @discardableResult
    public func sql(_ statement: String, database: String = "postgres") throws -> String {
        try Self.run(["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "gateway", "-d", database, "-c", statement])
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/pg-cluster.sh").path

    /// Runs a command (through `sh`, each argument quoted) and returns what it printed;
    /// stderr is part of the output, so a failure says why. (`popen` rather than Foundation's
    /// `Process`, whose `waitUntilExit` can hang here when the command leaves a background child.)
    static func run(_ arguments: [String]) throws -> String {
        let command = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ") + " 2>&1"
        guard let pipe = popen(command, "r") else { throw PostgresClusterError(message: "could not run \(arguments.first ?? "")") }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        let status = pclose(pipe)
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0 else { throw PostgresClusterError(message: "\(arguments.first ?? "") failed (status \(status)): \(text)") }
        return text
    }
}

/// The throwaway cluster could not be started or used.
public struct PostgresClusterError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "PostgreSQL test cluster: \(message)" }
}
