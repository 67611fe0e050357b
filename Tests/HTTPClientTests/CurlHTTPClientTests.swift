import Foundation
import HTTPClient
import Testing

@Suite("CurlHTTPClient against a loopback server", .timeLimit(.minutes(2)))
struct CurlHTTPClientTests {
    @Test func getReturnsBodyHeadersAndVersion() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(
                url: server.url("/echo?x=1"),
                headers: ["X-Request-Id": "abc123", "Accept": "application/json"]
            ))
            #expect(response.status == 200)
            #expect(response.httpVersion == .http1_1)
            #expect(response.headers["content-type"] == "application/json")
            let echo = try decodeEcho(response)
            #expect(echo.method == "GET")
            #expect(echo.uri == "/echo?x=1")
            #expect(echo.header("x-request-id") == "abc123")
            #expect(echo.header("accept") == "application/json")
            #expect(echo.header("user-agent") == "campus-gateway")
            #expect(echo.body.isEmpty)
        }
    }

    @Test func postSendsBodyAndHeaders() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let payload = String(repeating: "héllo wörld ", count: 500) // > 1 KiB, non-ASCII
            let response = try await client.execute(OutboundRequest(
                method: .post,
                url: server.url("/echo"),
                headers: ["Content-Type": "text/plain; charset=utf-8", "X-Custom": "v"],
                body: Data(payload.utf8)
            ))
            #expect(response.status == 200)
            let echo = try decodeEcho(response)
            #expect(echo.method == "POST")
            #expect(echo.body == payload)
            #expect(echo.header("content-type") == "text/plain; charset=utf-8")
            #expect(echo.header("x-custom") == "v")
            #expect(echo.header("content-length") == "\(payload.utf8.count)")
            #expect(echo.header("expect") == nil)
        }
    }

    @Test(arguments: [HTTPMethod.put, .patch, .delete])
    func otherMethodsWithBody(method: HTTPMethod) async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(
                method: method, url: server.url("/echo"), body: Data("{\"a\":1}".utf8)
            ))
            let echo = try decodeEcho(response)
            #expect(echo.method == method.rawValue)
            #expect(echo.body == "{\"a\":1}")
            // libcurl's default form content type must not be invented.
            #expect(echo.header("content-type") == nil)
        }
    }

    @Test func headRequestHasNoBody() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(method: .head, url: server.url("/bytes/100")))
            #expect(response.status == 200)
            #expect(response.headers["Content-Length"] == "100")
            #expect(response.body.isEmpty)
        }
    }

    @Test(arguments: [201, 204, 301, 404, 418, 500, 503])
    func statusCodesPassThrough(code: Int) async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(url: server.url("/status/\(code)")))
            #expect(response.status == code)
        }
    }

    @Test func responseHeadersKeepOrderAndDuplicates() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(url: server.url("/headers")))
            #expect(response.headers.values(for: "set-cookie") == ["a=1", "b=2"])
            #expect(response.headers["x-mixed-case"] == "Yes")
            #expect(response.headers["X-MIXED-CASE"] == "Yes")
            let names = response.headers.map(\.name).filter { $0 != "Content-Length" && $0 != "Connection" }
            #expect(names == ["Set-Cookie", "X-Mixed-Case", "Set-Cookie"])
        }
    }

    @Test func basicAuthCredentialsAreSent() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let anonymous = try await client.execute(OutboundRequest(url: server.url("/auth")))
            #expect(anonymous.status == 401)

            let credentials = BasicCredentials(username: TestHTTPServer.username, password: TestHTTPServer.password)
            let authorized = try await client.execute(OutboundRequest(url: server.url("/auth"), basicCredentials: credentials))
            #expect(authorized.status == 200)
            #expect(authorized.bodyText == "welcome")

            let echoed = try decodeEcho(try await client.execute(
                OutboundRequest(url: server.url("/echo"), basicCredentials: credentials)))
            #expect(echoed.header("authorization") == "Basic YWxpY2U6czNjcmV0")

            let wrong = BasicCredentials(username: TestHTTPServer.username, password: "nope")
            let rejected = try await client.execute(OutboundRequest(url: server.url("/auth"), basicCredentials: wrong))
            #expect(rejected.status == 401)
        }
    }

    @Test func redirectsAreNotFollowedByDefault() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(url: server.url("/redirect")))
            #expect(response.status == 302)
            #expect(response.headers["location"] == "/echo?from=redirect")
            #expect(server.stats.totalRequests == 1)
        }
    }

    @Test func redirectsAreFollowedWhenEnabled() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let response = try await client.execute(OutboundRequest(url: server.url("/redirect"), followRedirects: true))
            #expect(response.status == 200)
            #expect(try decodeEcho(response).uri == "/echo?from=redirect")
            #expect(response.url == server.url("/echo?from=redirect"))
            #expect(response.headers["location"] == nil) // only the final hop's headers
        }
    }

    @Test func perRequestTimeoutFires() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            // The server answers after 5 s; only an enforced timeout yields `.timeout`.
            let error = await thrownError {
                try await client.execute(OutboundRequest(url: server.url("/sleep/5000"), timeout: .milliseconds(300)))
            }
            guard case .timeout? = error as? HTTPClientError else {
                Issue.record("expected .timeout, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func defaultTimeoutApplies() async throws {
        try await withTestServer { server in
            let client = makeClient(timeout: .milliseconds(300))
            defer { client.shutdown() }
            let error = await thrownError { try await client.execute(OutboundRequest(url: server.url("/sleep/5000"))) }
            guard case .timeout? = error as? HTTPClientError else {
                Issue.record("expected .timeout, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: ["/bytes/5000", "/chunked-bytes/5000"])
    func responseSizeLimitIsEnforced(path: String) async throws {
        try await withTestServer { server in
            let client = makeClient(maxBody: 1000)
            defer { client.shutdown() }
            let error = await thrownError { try await client.execute(OutboundRequest(url: server.url(path))) }
            #expect(error as? HTTPClientError == .responseTooLarge(limit: 1000))

            let exact = try await client.execute(OutboundRequest(url: server.url(path.replacingOccurrences(of: "5000", with: "1000"))))
            #expect(exact.body.count == 1000)

            let overridden = try await client.execute(OutboundRequest(url: server.url(path), maxResponseBodySize: 5000))
            #expect(overridden.body.count == 5000)
        }
    }

    @Test func defaultLimitIsTenMebibytes() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(configuration: .init(
                threadCount: 1, defaultTimeout: .seconds(20), allowedDestinations: .loopback))
            defer { client.shutdown() }
            #expect(client.configuration.maxResponseBodySize == 10 * 1024 * 1024)
            let error = await thrownError {
                try await client.execute(OutboundRequest(url: server.url("/chunked-bytes/\(11 * 1024 * 1024)")))
            }
            #expect(error as? HTTPClientError == .responseTooLarge(limit: 10 * 1024 * 1024))
        }
    }

    @Test func connectionsAreReusedAcrossRequests() async throws {
        try await withTestServer { server in
            let client = makeClient(threads: 1)
            defer { client.shutdown() }
            for index in 0..<5 {
                let response = try await client.execute(OutboundRequest(url: server.url("/echo?i=\(index)")))
                #expect(response.status == 200)
            }
            #expect(server.stats.totalRequests == 5)
            #expect(server.stats.connectionCount == 1)
        }
    }

    @Test func connectionRefusedIsReported() async throws {
        // A port bound for this test and never listened on: connections to it are refused, and
        // no other test's server can take it meanwhile (a port freed by a stopped server could
        // be, by the parallel suite).
        let closed = try ClosedPort()
        defer { closed.release() }
        let url = URL(string: "http://127.0.0.1:\(closed.port)/echo")!

        let client = makeClient()
        defer { client.shutdown() }
        let error = await thrownError { try await client.execute(OutboundRequest(url: url)) }
        guard case .connectionFailed? = error as? HTTPClientError else {
            Issue.record("expected .connectionFailed, got \(String(describing: error))")
            return
        }
    }

    @Test func requestsAfterShutdownAreRejected() async throws {
        try await withTestServer { server in
            let client = makeClient()
            client.shutdown()
            let error = await thrownError { try await client.execute(OutboundRequest(url: server.url("/echo"))) }
            #expect(error as? HTTPClientError == .shutDown)
        }
    }
}
