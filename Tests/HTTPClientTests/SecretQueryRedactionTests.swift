import Foundation
import HTTPClient
import Logging
import Testing
import Synchronization
import Tracing

/// Issue 52: a secret in a URL (Moodle's `wstoken`) reaches the server, and nothing the client
/// writes: not its log lines (completed or failed, at trace level), not a request's or an
/// error's description, not a client span's attributes.
@Suite("A secret in a URL's query is never written")
struct SecretQueryRedactionTests {
    static let token = "0123456789abcdef0123456789abcdef"

    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: String { lines.withLock { $0.joined(separator: "\n") } }
    }

    struct Handler: LogHandler {
        let sink: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.lines.withLock { $0.append("\(event.message) \(merged.map { "\($0.key)=\($0.value)" }.joined(separator: " "))") }
        }
    }

    static func client(_ lines: Lines) -> CurlHTTPClient {
        var logger = Logger(label: "redaction") { _ in Handler(sink: lines) }
        logger.logLevel = .trace
        return CurlHTTPClient(configuration: .init(threadCount: 1, connectTimeout: .seconds(5), defaultTimeout: .seconds(10), allowedDestinations: .loopback, logger: logger))
    }

    @Test func theTokenReachesTheServerAndNoLogLine() async throws {
        let lines = Lines()
        let client = Self.client(lines)
        defer { client.shutdown() }
        try await withTestServer { server in
            let url = server.url("/echo/webservice/rest/server.php?wsfunction=core_webservice_get_site_info&wstoken=\(Self.token)")
            let request = OutboundRequest(url: url)
            let response = try await client.execute(request)
            #expect(try decodeEcho(response).uri.contains(Self.token), "the server got it")
            #expect(!"\(request)".contains(Self.token))
            #expect(!"\(request)".contains("wstoken"))
        }
        #expect(lines.all.contains("outbound request completed"), "\(lines.all)")
        #expect(!lines.all.contains(Self.token), "\(lines.all)")
    }

    @Test func aFailedRequestsErrorAndLogCarryNoToken() async throws {
        let lines = Lines()
        let client = Self.client(lines)
        defer { client.shutdown() }
        let closed = try ClosedPort()
        let request = OutboundRequest(url: URL(string: "http://127.0.0.1:\(closed.port)/webservice/rest/server.php?wstoken=\(Self.token)")!)
        let error = await thrownError { try await client.execute(request) }
        let described = "\(try #require(error))"
        #expect(!described.contains(Self.token), "\(described)")
        #expect(lines.all.contains("outbound request failed"), "\(lines.all)")
        #expect(!lines.all.contains(Self.token), "\(lines.all)")
    }

    @Test func aClientSpanNamesTheHostOnly() {
        let request = OutboundRequest(url: URL(string: "https://moodle.example.edu:8443/webservice/rest/server.php?wstoken=\(Self.token)&wsfunction=x")!)
        var written: [String] = []
        CurlHTTPClient.spanAttributes(of: request).forEach { key, value in written.append("\(key)=\(value)") }
        #expect(written.contains { $0.hasPrefix("server.address=") && $0.contains("moodle.example.edu") }, "\(written)")
        #expect(written.contains { $0.hasPrefix("server.port=") && $0.contains("8443") }, "\(written)")
        #expect(!written.joined().contains(Self.token), "\(written)")
        #expect(!written.joined().contains("wstoken"), "\(written)")
    }
}
