import Foundation
import HTTPClient
import Testing

private let opensslPath = "/usr/bin/openssl"

/// An `openssl s_server -www` on 127.0.0.1 with a freshly generated self-signed certificate.
private struct SelfSignedTLSServer {
    let directory: URL
    let certificatePath: String
    let port: Int
    let process: Process

    static func start() async throws -> SelfSignedTLSServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpclient-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try run([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
            "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ])

        // Borrow a free port from a throw-away NIO server.
        let probe = try await TestHTTPServer.start()
        let port = probe.port
        try await probe.shutdown()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslPath)
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-www", "-quiet"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = SelfSignedTLSServer(directory: directory, certificatePath: cert, port: port, process: process)
        try await server.waitUntilListening()
        return server
    }

    private func waitUntilListening() async throws {
        for _ in 0..<50 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        stop()
        throw HTTPClientError.connectionFailed(message: "openssl s_server did not start")
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslPath)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HTTPClientError.other(code: Int(process.terminationStatus), message: "openssl \(arguments[0]) failed")
        }
    }
}

@Suite(
    "TLS verification",
    .serialized,
    .timeLimit(.minutes(1)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath), "needs the openssl command")
)
struct TLSVerificationTests {
    @Test func selfSignedCertificateIsRejectedByDefault() async throws {
        let server = try await SelfSignedTLSServer.start()
        defer { server.stop() }
        let client = CurlHTTPClient(configuration: .init(threadCount: 1, defaultTimeout: .seconds(10)))
        defer { client.shutdown() }
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(OutboundRequest(url: URL(string: "https://127.0.0.1:\(server.port)/")!))
        }
        guard case .tlsFailure? = error else {
            Issue.record("expected .tlsFailure, got \(String(describing: error))")
            return
        }
    }

    @Test func extraCAFileIsTrusted() async throws {
        let server = try await SelfSignedTLSServer.start()
        defer { server.stop() }
        let client = CurlHTTPClient(configuration: .init(
            threadCount: 1, defaultTimeout: .seconds(10), additionalCAFile: server.certificatePath))
        defer { client.shutdown() }
        let response = try await client.execute(OutboundRequest(url: URL(string: "https://127.0.0.1:\(server.port)/")!))
        #expect(response.status == 200)
        #expect(response.httpVersion == .http1_0) // s_server -www answers HTTP/1.0
    }

    @Test func plainHTTPServerOnHTTPSURLIsATLSFailure() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(configuration: .init(threadCount: 1, defaultTimeout: .seconds(10)))
            defer { client.shutdown() }
            let error = await #expect(throws: HTTPClientError.self) {
                try await client.execute(OutboundRequest(url: URL(string: "https://127.0.0.1:\(server.port)/echo")!))
            }
            guard case .tlsFailure? = error else {
                Issue.record("expected .tlsFailure, got \(String(describing: error))")
                return
            }
        }
    }
}
