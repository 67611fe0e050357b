import TestSupport
import Foundation
import HTTPClient
@testable import Push
import Synchronization
import Testing

/// The project venv's Python and the helpers in `Tests/PushTests/Fixtures`: independent
/// implementations (http_ece, cryptography, hmac) that check what the channels send.
///
/// Children get files, not pipes, and are awaited by polling with `Task.sleep`, never with
/// `Process.waitUntilExit()` or a blocking read: with two cores the cooperative pool has two
/// threads, and tests blocking both in `waitUntilExit` starve the dispatch source that would
/// report the exit (a deadlock); pipe ends also leak into concurrently spawned children, so EOF
/// may never come.
enum PythonFixtures {
    /// The package root: three levels above this file (Tests/PushTests/<file>).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/PushTests/Fixtures")
    static let hint = "run `make deps` (or `bash scripts/install-deps.sh`) to create .venv with http_ece and cryptography"

    struct Unavailable: Error {}

    /// The venv's Python, after checking it has http_ece and cryptography; records a failing
    /// issue (never a skip) when it does not.
    static func python() async throws -> URL {
        let python = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("\(python.path) is missing: \(hint)")
            throw Unavailable()
        }
        let modules = try await run(python, ["-c", "import http_ece, cryptography"])
        guard modules.status == 0 else {
            Issue.record("the venv lacks http_ece or cryptography (\(modules.error)): \(hint)")
            throw Unavailable()
        }
        return python
    }

    /// Runs a short-lived child with `input` on its standard input; at most 60 seconds.
    static func run(_ executable: URL, _ arguments: [String], input: Data = Data()) async throws -> (status: Int32, output: Data, error: String) {
        let directory = try temporaryDirectory("python-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ["in", "out", "err"].map { directory.appendingPathComponent($0) }
        try input.write(to: files[0])
        for file in files.dropFirst() { _ = FileManager.default.createFile(atPath: file.path, contents: Data()) }
        let process = TestProcess()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = root
        let handles = [try FileHandle(forReadingFrom: files[0]), try FileHandle(forWritingTo: files[1]), try FileHandle(forWritingTo: files[2])]
        process.standardInput = handles[0]
        process.standardOutput = handles[1]
        process.standardError = handles[2]
        try process.run()
        for handle in handles { try? handle.close() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning {
            process.terminate()
            Issue.record("\(executable.lastPathComponent) \(arguments.first ?? "") did not finish within 60 seconds")
            throw Unavailable()
        }
        let error = (try? String(contentsOf: files[2], encoding: .utf8)) ?? ""
        return (process.terminationStatus, try Data(contentsOf: files[1]), error)
    }

    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// What push_receiver.py or webpush_check.py saw in one request.
struct ReceivedRequest: Decodable {
    var path: String?
    var method: String?
    var headers: [String: String]?
    var plaintext: String?
    var decrypt_error: String?
    var vapid_problems: [String]?
    var claims: Claims?
    var body: String?
    var signature_valid: Bool?
    var signature_error: String?

    struct Claims: Decodable, Equatable {
        var aud: String
        var exp: Int
        var sub: String
    }
}

/// push_receiver.py as a child process on 127.0.0.1, stopped by ``stop()`` or when released
/// (and by itself when the test process goes away, or after 120 seconds).
final class PushReceiver {
    let port: Int
    private let process: TestProcess
    private let directory: URL

    init(environment: [String: String]) async throws {
        let python = try await PythonFixtures.python()
        directory = try PythonFixtures.temporaryDirectory("push-receiver")
        let records = directory.appendingPathComponent("records.jsonl")
        let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
        for file in [records, out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: Data()) }
        process = TestProcess()
        process.executableURL = python
        process.arguments = [PythonFixtures.fixtures.appendingPathComponent("push_receiver.py").path, records.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let handles = [try FileHandle(forWritingTo: out), try FileHandle(forWritingTo: err)]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handles[0]
        process.standardError = handles[1]
        try process.run()
        for handle in handles { try? handle.close() }
        var port: Int?
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while port == nil, process.isRunning, ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if text.hasPrefix("PORT "), text.hasSuffix("\n") {
                port = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
            } else {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        guard let port else {
            let detail = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: directory)
            Issue.record("push_receiver.py did not start: \(detail)")
            throw PythonFixtures.Unavailable()
        }
        self.port = port
    }

    deinit { stop() }

    /// A URL on this receiver: `/webpush/<status>[/<retry-after>]` or `/webhook/...`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Every request received so far, in order (each is written before it is answered).
    func records() throws -> [ReceivedRequest] {
        let text = try String(contentsOf: directory.appendingPathComponent("records.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(ReceivedRequest.self, from: Data($0.utf8)) }
    }

    /// Terminates the receiver without waiting (see ``PythonFixtures``) and removes its files.
    func stop() {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// An ``HTTPClient`` that records requests and answers with `respond`.
final class RecordingHTTPClient: HTTPClient {
    private let state = Mutex<[OutboundRequest]>([])
    private let respond: @Sendable (OutboundRequest) throws -> OutboundResponse

    init(_ respond: @escaping @Sendable (OutboundRequest) throws -> OutboundResponse) {
        self.respond = respond
    }

    convenience init(status: Int, headers: HTTPHeaderFields = [:], body: String = "") {
        self.init { _ in OutboundResponse(status: status, headers: headers, body: Data(body.utf8)) }
    }

    var requests: [OutboundRequest] { state.withLock { $0 } }

    func execute(_ request: OutboundRequest) async throws -> OutboundResponse {
        state.withLock { $0.append(request) }
        return try respond(request)
    }
}
