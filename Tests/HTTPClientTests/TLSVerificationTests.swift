import Foundation
import HTTPClient
import Testing

let opensslPath = "/usr/bin/openssl"

/// An `openssl s_server` on 127.0.0.1 with a freshly generated self-signed certificate.
///
/// Without `responses` it runs with `-www` (a status page for any request). With `responses` it
/// runs with `-HTTP`: `GET /name` answers the raw HTTP response `responses["name"]` (status
/// line, CRLF-terminated headers, body), which lets tests make an HTTPS server redirect.
struct SelfSignedTLSServer {
    let directory: String
    let certificatePath: String
    let port: Int
    let process: ChildProcess

    static func start(responses: [String: String]? = nil) async throws -> SelfSignedTLSServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("httpclient-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let cert = directory + "/cert.pem"
        let key = directory + "/key.pem"
        let status = try await ChildProcess.spawn(opensslPath, [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
            "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ]).wait()
        guard status == 0 else { throw ChildProcessError(message: "openssl req failed with status \(status)") }

        // Borrow a free port from a throw-away NIO server.
        let probe = try await TestHTTPServer.start()
        let port = probe.port
        try await probe.shutdown()

        for (name, response) in responses ?? [:] {
            try Data(response.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        let process = try ChildProcess.spawn(opensslPath, [
            "s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key,
            responses == nil ? "-www" : "-HTTP", "-quiet",
        ], workingDirectory: directory)
        let server = SelfSignedTLSServer(directory: directory, certificatePath: cert, port: port, process: process)
        do {
            try await server.waitUntilListening()
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    private func waitUntilListening() async throws {
        for _ in 0..<100 {
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
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ChildProcessError(message: "openssl s_server did not start listening")
    }

    func stop() {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
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
        let client = CurlHTTPClient(configuration: .init(
            threadCount: 1, defaultTimeout: .seconds(10), allowedDestinations: .loopback))
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
            threadCount: 1, defaultTimeout: .seconds(10), additionalCAFile: server.certificatePath,
            allowedDestinations: .loopback))
        defer { client.shutdown() }
        let response = try await client.execute(OutboundRequest(url: URL(string: "https://127.0.0.1:\(server.port)/")!))
        #expect(response.status == 200)
        #expect(response.httpVersion == .http1_0) // s_server -www answers HTTP/1.0
    }

    @Test func plainHTTPServerOnHTTPSURLIsATLSFailure() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(configuration: .init(
            threadCount: 1, defaultTimeout: .seconds(10), allowedDestinations: .loopback))
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
