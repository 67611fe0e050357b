import Foundation
import HTTPClient
@testable import Push
import Synchronization
import Testing

/// The project venv's Python and the helpers in `Tests/PushTests/Fixtures`: independent
/// implementations (http_ece, cryptography, hmac) that check what the channels send.
enum PythonFixtures {
    /// The package root: three levels above this file (Tests/PushTests/<file>).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/PushTests/Fixtures")
    static let hint = "run `make deps` (or `bash scripts/install-deps.sh`) to create .venv with http_ece and cryptography"

    struct Unavailable: Error {}

    /// The venv's Python, after checking it has http_ece and cryptography; records a failing
    /// issue (never a skip) when it does not.
    static func python() throws -> URL {
        let python = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("\(python.path) is missing: \(hint)")
            throw Unavailable()
        }
        let modules = try run(python, ["-c", "import http_ece, cryptography"])
        guard modules.status == 0 else {
            Issue.record("the venv lacks http_ece or cryptography (\(modules.error)): \(hint)")
            throw Unavailable()
        }
        return python
    }

    static func run(_ executable: URL, _ arguments: [String], input: Data? = nil) throws -> (status: Int32, output: Data, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = root
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: input ?? Data())
        try stdin.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, outputData, String(decoding: errorData, as: UTF8.self))
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

/// push_receiver.py as a child process on 127.0.0.1; stopped (stdin closed, terminated) by
/// ``stop()`` or when it is released.
final class PushReceiver {
    let port: Int
    private let process: Process
    private let stdin: Pipe
    private let recordFile: URL

    init(environment: [String: String]) throws {
        let python = try PythonFixtures.python()
        recordFile = FileManager.default.temporaryDirectory.appendingPathComponent("push-receiver-\(UUID().uuidString).jsonl")
        FileManager.default.createFile(atPath: recordFile.path, contents: Data())
        process = Process()
        process.executableURL = python
        process.arguments = [PythonFixtures.fixtures.appendingPathComponent("push_receiver.py").path, recordFile.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            let detail = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("push_receiver.py did not start: \(text) \(detail)")
            throw PythonFixtures.Unavailable()
        }
        self.port = port
    }

    deinit { stop() }

    /// A URL on this receiver: `/webpush/<status>[/<retry-after>]` or `/webhook/...`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Every request received so far, in order.
    func records() throws -> [ReceivedRequest] {
        let text = try String(contentsOf: recordFile, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(ReceivedRequest.self, from: Data($0.utf8)) }
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: recordFile)
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
