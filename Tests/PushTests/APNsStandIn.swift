import TestSupport
import Foundation
import Push
import Synchronization
import Testing

/// The APNs stand-in (Fixtures/apns_standin.py, Python `h2` over TLS) as a child process on
/// 127.0.0.1: a fresh self-signed certificate (`subjectAltName=IP:127.0.0.1`) made with openssl,
/// the provider key's public half on its command line, each request recorded as a JSON line.
final class APNsStandIn: @unchecked Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "edu.campus.gateway"
    /// The package root: three levels above this file (Tests/PushTests/<file>).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let hint = "run `make deps` (or `bash scripts/install-deps.sh`) to create .venv with h2 and cryptography"

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    let directory: URL
    let baseURL: URL
    let caFile: String
    private let process: TestProcess
    /// The stand-in's stdin: it exits when this closes, even if the test process dies.
    private let lifeline = Pipe()

    /// Starts the stand-in; records an issue and throws if the venv lacks `h2` or `cryptography`.
    init(publicKeyDER: Data, unregisteredAt: Int64 = 1_700_000_000_123, retryAfter: Int? = nil, maxStreams: Int = 1000, workers: Int = 1) throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("\(python.path) is missing: \(Self.hint)")
            throw Unavailable(description: "no venv")
        }
        let modules = try Self.run(python.path, ["-c", "import h2, cryptography"])
        guard modules.status == 0 else {
            Issue.record("the venv lacks h2 or cryptography (\(modules.output)): \(Self.hint)")
            throw Unavailable(description: "venv modules missing")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-standin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let openssl = try Self.run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard openssl.status == 0 else { throw Unavailable(description: "openssl failed: \(openssl.output)") }
        caFile = cert

        let portFile = directory.appendingPathComponent("port")
        var arguments = [
            Self.root.appendingPathComponent("Tests/PushTests/Fixtures/apns_standin.py").path,
            "--cert", cert, "--key", key, "--public-key", publicKeyDER.base64EncodedString(),
            "--team-id", Self.teamID, "--key-id", Self.keyID, "--topic", Self.topic,
            "--port-file", portFile.path, "--log", directory.appendingPathComponent("requests.jsonl").path,
            "--unregistered-at", String(unregisteredAt), "--max-streams", String(maxStreams), "--workers", String(workers),
            "--answer-file", directory.appendingPathComponent("answer").path,
        ]
        if let retryAfter { arguments += ["--retry-after", String(retryAfter)] }
        process = TestProcess()
        process.executableURL = python
        process.arguments = arguments
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("stderr").path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: directory.appendingPathComponent("stderr"))
        try process.run()

        let deadline = Date().addingTimeInterval(30)
        var port: Int?
        while port == nil, Date() < deadline, process.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let port else {
            let stderr = (try? String(contentsOf: directory.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
            Self.end(process, lifeline: lifeline)
            throw Unavailable(description: "the stand-in did not start: \(stderr)")
        }
        baseURL = URL(string: "https://127.0.0.1:\(port)")!
    }

    deinit { stop() }

    /// Closes the lifeline and terminates the stand-in (SIGKILL if it is still there after 5 s).
    /// Its directory (certificate, requests.jsonl, stderr) is removed unless `APNS_KEEP_STANDIN` is set.
    func stop() {
        Self.end(process, lifeline: lifeline)
        if ProcessInfo.processInfo.environment["APNS_KEEP_STANDIN"] == nil { try? FileManager.default.removeItem(at: directory) }
    }

    private static func end(_ process: TestProcess, lifeline: Pipe) {
        try? lifeline.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// `<status> <reason>` (e.g. `503 ServiceUnavailable`) answers every valid request from now
    /// on, as an APNs having a bad time; nil: it answers by device token again.
    func answer(_ line: String?) throws {
        let file = directory.appendingPathComponent("answer")
        if let line {
            try Data((line + "\n").utf8).write(to: file, options: .atomic)
        } else if FileManager.default.fileExists(atPath: file.path) {
            try FileManager.default.removeItem(at: file)
        }
    }

    /// One request as the stand-in saw it.
    struct Record {
        var connection: Int
        var path: String
        var headers: [String: String]
        var jwtHash: String
        var claims: [String: Any]?
        var payload: [String: Any]?
        var size: Int
        var status: Int
        var reason: String?
    }

    /// Every request recorded so far, in arrival order.
    func records() throws -> [Record] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("requests.jsonl"), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return Record(
                connection: object["conn"] as? Int ?? -1, path: object["path"] as? String ?? "",
                headers: object["headers"] as? [String: String] ?? [:], jwtHash: object["jwt_sha256"] as? String ?? "",
                claims: object["claims"] as? [String: Any], payload: object["payload"] as? [String: Any],
                size: object["size"] as? Int ?? -1, status: object["status"] as? Int ?? -1, reason: object["reason"] as? String)
        }
    }

    /// A channel pointed at this stand-in, trusting its certificate.
    func channel(_ token: APNsProviderToken, maxConnectionsPerHost: Int = 4, maxConcurrentStreams: Int = 500) -> APNsChannel {
        APNsChannel(providerToken: token, configuration: .init(
            baseURL: baseURL, additionalCAFile: caFile, maxConnectionsPerHost: maxConnectionsPerHost,
            maxConcurrentStreams: maxConcurrentStreams, requestTimeout: .seconds(20)))
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A clock tests move by hand.
final class APNsTestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// Test keys, tokens and notifications.
enum APNsFixtures {
    /// The OpenSSL-made .p8 in Fixtures (`-----BEGIN PRIVATE KEY-----`, PKCS#8).
    static var p8PEM: String {
        get throws { try String(contentsOf: APNsStandIn.root.appendingPathComponent("Tests/PushTests/Fixtures/apns_test_key.p8"), encoding: .utf8) }
    }

    static func providerToken(clock: APNsTestClock? = nil) throws -> APNsProviderToken {
        try APNsProviderToken(
            p8PEM: p8PEM, teamID: APNsStandIn.teamID, keyID: APNsStandIn.keyID, now: { clock?.now ?? Date() })
    }

    /// A 64-hex-digit token starting with `prefix` (the stand-in answers by prefix).
    static func deviceToken(_ prefix: String = "a1", index: Int = 0) -> String {
        let tail = String(format: "%08x", index)
        return prefix + String(repeating: "0", count: 64 - prefix.count - tail.count) + tail
    }

    static func notification(id: String = UUID().uuidString, urgent: Bool = true, body: String = "Your CMSC 131 grade was posted.") -> OutgoingNotification {
        OutgoingNotification(
            id: id, category: "grade.new", title: "New grade", body: body, data: ["class": "123"], urgent: urgent)
    }
}

extension APNsStandIn {
    /// Starts the stand-in as ``init(publicKeyDER:unregisteredAt:retryAfter:maxStreams:workers:)``
    /// does, its blocking start (the Python process and the wait for its port) on a Dispatch
    /// thread, never on one of Swift's concurrency threads.
    static func started(
        publicKeyDER: Data, unregisteredAt: Int64 = 1_700_000_000_123, retryAfter: Int? = nil, maxStreams: Int = 1000, workers: Int = 1
    ) async throws -> APNsStandIn {
        try await Drill.offThread {
            try APNsStandIn(publicKeyDER: publicKeyDER, unregisteredAt: unregisteredAt, retryAfter: retryAfter, maxStreams: maxStreams, workers: workers)
        }
    }
}
