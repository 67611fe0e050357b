public import Foundation
public import TestSupport

/// A self-signed certificate for 127.0.0.1 and localhost, made with openssl for one test.
public struct TestCertificate: Sendable {
    public let directory: URL
    public var certificate: String { directory.appendingPathComponent("cert.pem").path }
    public var key: String { directory.appendingPathComponent("key.pem").path }

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", certificate,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BuiltProducts.Missing(description: "openssl could not make a test certificate") }
    }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A `gradebook-sim serve` child process over HTTPS on a loopback port (port 0, reported in a
/// port file), killed when the test ends or after `lifetime` seconds at the latest.
public final class SimulatorProcess: @unchecked Sendable {
    public let process = TestProcess()
    public let port: Int
    public let adminToken = "sim-admin-\(UUID().uuidString)"
    private let watchdog: Watchdog

    /// Over HTTPS with `certificate`, whose folder keeps the port file.
    public convenience init(certificate: TestCertificate, prefix: String = "cgi-bin", lifetime: TimeInterval = 300) throws {
        try self.init(certificate: certificate, directory: certificate.directory, prefix: prefix, lifetime: lifetime)
    }

    /// Over plain HTTP (a development source), the port file in `directory`.
    public convenience init(plainIn directory: URL, prefix: String = "cgi-bin", lifetime: TimeInterval = 300) throws {
        try self.init(certificate: nil, directory: directory, prefix: prefix, lifetime: lifetime)
    }

    private init(certificate: TestCertificate?, directory: URL, prefix: String, lifetime: TimeInterval) throws {
        let binary = BuiltProducts.url("gradebook-sim")
        let portFile = directory.appendingPathComponent("sim-port").path
        process.executableURL = binary
        let tls = certificate.map { ["--tls-certificate", $0.certificate, "--tls-key", $0.key] } ?? []
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--port-file", portFile] + tls + [
            "--admin-token", adminToken, "--prefix", prefix, "--log-level", "error",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        watchdog = Watchdog(process, seconds: lifetime)
        var found: Int?
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                found = value
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let found else {
            process.terminate()
            throw BuiltProducts.Missing(description: "gradebook-sim did not start")
        }
        port = found
    }

    public func stop() {
        watchdog.cancel()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

extension SimulatorProcess {
    /// ``init(certificate:prefix:lifetime:)``, its blocking start on a Dispatch thread.
    public static func started(certificate: TestCertificate, prefix: String = "cgi-bin", lifetime: TimeInterval = 300) async throws -> SimulatorProcess {
        try await Drill.offThread { try SimulatorProcess(certificate: certificate, prefix: prefix, lifetime: lifetime) }
    }

    /// ``init(plainIn:prefix:lifetime:)``, its blocking start on a Dispatch thread.
    public static func started(plainIn directory: URL, prefix: String = "cgi-bin", lifetime: TimeInterval = 300) async throws -> SimulatorProcess {
        try await Drill.offThread { try SimulatorProcess(plainIn: directory, prefix: prefix, lifetime: lifetime) }
    }
}
