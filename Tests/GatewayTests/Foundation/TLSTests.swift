import Foundation
import Testing

@Suite("Native TLS", .serialized)
struct TLSTests {
    static func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func serveWithCertificateAnswersHTTPSOnly() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        let (made, _) = try Self.run("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
        ])
        try #require(made == 0, "openssl must be installed to make a test certificate")
        let server = try ServingGateway(arguments: [
            "--database", dir.appendingPathComponent("db.sqlite").path, "--tls-cert", cert, "--tls-key", key,
        ])
        defer { _ = server.terminate() }
        var answer = ""
        for _ in 0..<100 {
            let (status, body) = try Self.run("curl", ["-s", "--cacert", cert, "https://127.0.0.1:\(server.port)/healthz"])
            if status == 0 { answer = body; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(answer.contains("\"ok\""))
        let (plainStatus, _) = try Self.run("curl", ["-s", "-m", "2", "http://127.0.0.1:\(server.port)/healthz"])
        #expect(plainStatus != 0, "plain HTTP must not be served on the TLS port")
    }
}
