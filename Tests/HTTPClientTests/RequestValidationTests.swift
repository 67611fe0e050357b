import Foundation
import HTTPClient
import Testing

/// Checks that need no server: validation, redaction and header semantics.
@Suite("Request validation and value types")
struct RequestValidationTests {
    private let client = CurlHTTPClient(configuration: .init(threadCount: 1))

    @Test(arguments: ["ftp://example.com/file", "file:///etc/passwd", "/relative/path", "gopher://h/"])
    func nonHTTPURLsAreRejected(url: String) async throws {
        defer { client.shutdown() }
        let request = OutboundRequest(url: try #require(URL(string: url)))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(request)
        }
        guard case .invalidURL? = error else {
            Issue.record("expected .invalidURL, got \(String(describing: error))")
            return
        }
    }

    /// A header that must be refused; described by `label` so test output stays printable.
    struct BadHeader: Sendable, CustomStringConvertible {
        var label: String
        var name: String
        var value: String
        var description: String { label }
    }

    @Test(arguments: [
        BadHeader(label: "CRLF injection", name: "X-Bad", value: "a\r\nInjected: yes"),
        BadHeader(label: "bare LF", name: "X-Bad", value: "a\nb"),
        BadHeader(label: "space in name", name: "Bad Name", value: "v"),
        BadHeader(label: "colon in name", name: "Bad:Name", value: "v"),
        BadHeader(label: "empty name", name: "", value: "v"),
        BadHeader(label: "NUL in value", name: "X-Nul", value: "a\u{0}b"),
    ])
    func malformedHeadersAreRejected(header: BadHeader) async throws {
        defer { client.shutdown() }
        let request = OutboundRequest(
            url: URL(string: "http://127.0.0.1:9/")!,
            headers: HTTPHeaderFields([(name: header.name, value: header.value)]))
        let error = await #expect(throws: HTTPClientError.self) {
            try await client.execute(request)
        }
        guard case .invalidRequest? = error else {
            Issue.record("expected .invalidRequest, got \(String(describing: error))")
            return
        }
    }

    @Test func descriptionsDoNotLeakSecrets() throws {
        defer { client.shutdown() }
        let request = OutboundRequest(
            method: .post,
            url: try #require(URL(string: "https://user:pw@api.example.com:8443/v1/items?token=topsecret#frag")),
            headers: ["Authorization": "Bearer topsecret"],
            body: Data("topsecret".utf8),
            basicCredentials: BasicCredentials(username: "svc", password: "hunter2")
        )
        #expect(request.description == "POST https://api.example.com:8443/v1/items")
        #expect(!"\(request.basicCredentials!)".contains("hunter2"))
        #expect(!String(reflecting: request.basicCredentials!).contains("hunter2"))
    }

    @Test func headerFieldsAreOrderedAndCaseInsensitive() {
        defer { client.shutdown() }
        var headers: HTTPHeaderFields = ["Accept": "a", "X-Thing": "1"]
        headers.add(name: "x-thing", value: "2")
        #expect(headers["X-THING"] == "1")
        #expect(headers.values(for: "x-thing") == ["1", "2"])
        #expect(headers.contains("accept"))
        headers.replaceOrAdd(name: "X-Thing", value: "3")
        #expect(headers.values(for: "x-thing") == ["3"])
        #expect(headers.map(\.name) == ["Accept", "X-Thing"])
        headers.remove(name: "ACCEPT")
        #expect(headers.count == 1)
        #expect(headers == ["X-Thing": "3"])
        #expect(headers != ["x-thing": "3"]) // equality is exact, lookup is not
    }
}

@Suite("libcurl runtime")
struct LibcurlRuntimeTests {
    @Test func linkedLibcurlSupportsHTTP2() {
        #expect(CurlHTTPClient.libcurlVersion.hasPrefix("libcurl/"))
        #expect(CurlHTTPClient.supportsHTTP2)
    }
}
