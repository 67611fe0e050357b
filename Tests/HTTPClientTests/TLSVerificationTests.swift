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

        for (name, response) in responses ?? [:] {
            try Data(response.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        // Port 0: the system picks a free port, and s_server prints `ACCEPT 127.0.0.1:<port>`
        // once it listens, so no port is reserved and released first.
        let output = directory + "/s_server.out"
        let process = try ChildProcess.spawn(opensslPath, [
            "s_server", "-accept", "127.0.0.1:0", "-cert", cert, "-key", key,
            responses == nil ? "-www" : "-HTTP",
        ], workingDirectory: directory, outputPath: output)
        do {
            let port = try await Self.listeningPort(in: output)
            return SelfSignedTLSServer(directory: directory, certificatePath: cert, port: port, process: process)
        } catch {
            process.kill()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The port from s_server's `ACCEPT` line, polled for up to 5 s.
    private static func listeningPort(in output: String) async throws -> Int {
        for _ in 0..<250 {
            if let text = try? String(contentsOfFile: output, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), port > 0
            {
                return port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ChildProcessError(message: "openssl s_server did not report a listening port")
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
