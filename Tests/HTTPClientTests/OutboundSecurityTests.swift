import Foundation
import HTTPClient
import Testing

/// The outbound controls from the security review: destination guard (SSRF), redirect scheme
/// rules and secret headers on cross-origin redirects. See docs/security.md.
@Suite("Outbound security: destination guard", .timeLimit(.minutes(1)))
struct DestinationGuardTests {
    @Test func loopbackIsRefusedUnlessAllowListed() async throws {
        try await withTestServer { server in
            let strict = makeClient(allowed: .none)
            defer { strict.shutdown() }
            let error = await thrownError { try await strict.execute(OutboundRequest(url: server.url("/echo"))) }
            #expect(error as? HTTPClientError == .destinationNotAllowed(address: "127.0.0.1", reason: "loopback"))
            // Refused before connect(): the server never saw a connection.
            #expect(server.stats.connectionCount == 0)

            let allowed = makeClient(allowed: ["127.0.0.1/32"])
            defer { allowed.shutdown() }
            let response = try await allowed.execute(OutboundRequest(url: server.url("/echo")))
            #expect(response.status == 200)
        }
    }

    @Test func hostNamesAreJudgedByTheirResolvedAddress() async throws {
        try await withTestServer { server in
            let byName = try #require(URL(string: "http://localhost:\(server.port)/echo"))
            let strict = makeClient(allowed: .none)
            defer { strict.shutdown() }
            let error = await thrownError { try await strict.execute(OutboundRequest(url: byName)) }
            guard case .destinationNotAllowed(_, let reason)? = error as? HTTPClientError else {
                Issue.record("expected .destinationNotAllowed, got \(String(describing: error))")
                return
            }
            #expect(reason == "loopback")
            #expect(server.stats.connectionCount == 0)

            // An exact host-name entry allows that name, and only that name.
            let named = makeClient(allowed: ["LocalHost."])
            defer { named.shutdown() }
            let response = try await named.execute(OutboundRequest(url: byName))
            #expect(response.status == 200)
            let literal = await thrownError { try await named.execute(OutboundRequest(url: server.url("/echo"))) }
            #expect(literal as? HTTPClientError == .destinationNotAllowed(address: "127.0.0.1", reason: "loopback"))
        }
    }

    @Test func redirectToARestrictedAddressIsRefused() async throws {
        try await withTestServer { origin in
            try await withTestServer(host: "127.0.0.2") { inner in
                let client = makeClient(allowed: ["127.0.0.1"])
                defer { client.shutdown() }
                let error = await thrownError {
                    try await client.execute(OutboundRequest(
                        url: origin.redirect(to: inner.url("/echo").absoluteString), followRedirects: true))
                }
                #expect(error as? HTTPClientError == .destinationNotAllowed(address: "127.0.0.2", reason: "loopback"))
                #expect(origin.stats.totalRequests == 1)
                #expect(inner.stats.connectionCount == 0)
            }
        }
    }

    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("127.255.255.254", "loopback"), ("::1", "loopback"),
        ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"),
        ("192.168.0.10", "private"), ("fc00::1", "private"), ("fd12:3456:789a::1", "private"),
        ("169.254.10.20", "link-local"), ("fe80::1", "link-local"), ("febf::1", "link-local"),
        ("0.0.0.0", "unspecified"), ("::", "unspecified"),
        ("100.64.0.1", "carrier-grade NAT"), ("100.127.255.255", "carrier-grade NAT"),
        ("169.254.169.254", "cloud metadata"), ("fd00:ec2::254", "cloud metadata"),
        ("::ffff:127.0.0.1", "loopback"), ("::ffff:169.254.169.254", "cloud metadata"),
        ("64:ff9b::a00:1", "private (embedded IPv4)"), ("224.0.0.1", "multicast"),
    ])
    func restrictedAddresses(address: String, reason: String) {
        #expect(DestinationAllowList.restriction(of: address) == reason)
        #expect(!DestinationAllowList.none.permits(address: address))
    }

    @Test(arguments: [
        "8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255", "192.169.0.1",
        "2606:4700:4700::1111", "2001:db8::1", "::ffff:8.8.8.8",
    ])
    func publicAddressesAreAllowed(address: String) {
        #expect(DestinationAllowList.restriction(of: address) == nil)
        #expect(DestinationAllowList.none.permits(address: address))
    }

    @Test func metadataNeedsAnExactEntry() throws {
        let wide = try DestinationAllowList(["169.254.0.0/16", "fd00::/8", "metadata.internal", "0.0.0.0/0"])
        #expect(wide.permits(address: "169.254.1.1"))
        #expect(wide.permits(address: "10.0.0.1"))
        #expect(!wide.permits(address: "169.254.169.254"))
        #expect(!wide.permits(address: "fd00:ec2::254"))
        #expect(!wide.permits(address: "169.254.169.254", host: "metadata.internal"))
        #expect(wide.permits(address: "192.168.1.1", host: "METADATA.internal"))

        let exact = try DestinationAllowList(["169.254.169.254", "[fd00:ec2::254]"])
        #expect(exact.permits(address: "169.254.169.254"))
        #expect(exact.permits(address: "fd00:ec2::254"))
        #expect(!exact.permits(address: "169.254.169.253"))
    }

    @Test(arguments: ["10.0.0.0/33", "::1/129", "1.2.3.4/", "10.0.0.1/x", "not a host", "*.example.edu", "", "a..b"])
    func invalidAllowListEntriesAreRejected(entry: String) {
        #expect(throws: DestinationAllowList.InvalidEntry.self) { try DestinationAllowList([entry]) }
    }
}

@Suite("Outbound security: redirects", .timeLimit(.minutes(1)))
struct RedirectSecurityTests {
    @Test(arguments: [
        "ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1:70/", "dict://127.0.0.1:11211/stat",
        "ldap://127.0.0.1/", "javascript:alert(1)",
    ])
    func redirectsToOtherSchemesAreRefused(location: String) async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let error = await thrownError {
                try await client.execute(OutboundRequest(url: server.redirect(to: location), followRedirects: true))
            }
            guard case .redirectRejected(let reason)? = error as? HTTPClientError else {
                Issue.record("expected .redirectRejected, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("only http and https"))
        }
    }

    @Test func redirectLimitIsEnforced() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            // /loop/4 is 5 redirects (the default limit), /loop/5 is 6.
            let within = try await client.execute(OutboundRequest(url: server.url("/loop/4"), followRedirects: true))
            #expect(within.status == 200)
            let error = await thrownError {
                try await client.execute(OutboundRequest(url: server.url("/loop/5"), followRedirects: true))
            }
            #expect(error as? HTTPClientError == .redirectRejected(reason: "more than 5 redirects"))
        }
    }

    private static let secretHeaders: HTTPHeaderFields = [
        "Authorization": "Bearer t0ken", "Cookie": "session=abc", "X-Api-Key": "k3y", "X-Trace": "visible",
    ]

    @Test func secretHeadersAreDroppedWhenTheOriginChanges() async throws {
        try await withTestServer { origin in
            try await withTestServer { other in
                let client = makeClient()
                defer { client.shutdown() }
                // Same host, other port: another origin.
                let response = try await client.execute(OutboundRequest(
                    url: origin.redirect(to: other.url("/echo").absoluteString),
                    headers: Self.secretHeaders, followRedirects: true, secretHeaderNames: ["x-api-key"]))
                let echo = try decodeEcho(response)
                #expect(echo.header("authorization") == nil)
                #expect(echo.header("cookie") == nil)
                #expect(echo.header("x-api-key") == nil)
                #expect(echo.header("x-trace") == "visible")

                let credentials = BasicCredentials(username: TestHTTPServer.username, password: TestHTTPServer.password)
                let basic = try decodeEcho(try await client.execute(OutboundRequest(
                    url: origin.redirect(to: other.url("/echo").absoluteString),
                    followRedirects: true, basicCredentials: credentials)))
                #expect(basic.header("authorization") == nil)
            }
        }
    }

    @Test func secretHeadersStayDroppedWhenTheChainReturns() async throws {
        try await withTestServer { origin in
            try await withTestServer { other in
                let client = makeClient()
                defer { client.shutdown() }
                // origin → other → back to origin: the hostile middle hop cannot bounce secrets back.
                let back = other.redirect(to: origin.url("/echo").absoluteString).absoluteString
                let echo = try decodeEcho(try await client.execute(OutboundRequest(
                    url: origin.redirect(to: back), headers: Self.secretHeaders,
                    followRedirects: true, secretHeaderNames: ["X-API-KEY"])))
                #expect(echo.header("authorization") == nil)
                #expect(echo.header("x-api-key") == nil)
                #expect(echo.header("x-trace") == "visible")
            }
        }
    }

    @Test func secretHeadersAreKeptOnSameOriginRedirects() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let echo = try decodeEcho(try await client.execute(OutboundRequest(
                url: server.redirect(to: "/echo?same=origin"), headers: Self.secretHeaders,
                followRedirects: true, secretHeaderNames: ["X-Api-Key"])))
            #expect(echo.uri == "/echo?same=origin")
            #expect(echo.header("authorization") == "Bearer t0ken")
            #expect(echo.header("cookie") == "session=abc")
            #expect(echo.header("x-api-key") == "k3y")
        }
    }

    @Test(arguments: [(301, "GET"), (302, "GET"), (303, "GET"), (307, "POST"), (308, "POST")])
    func redirectedPostFollowsTheStatusSemantics(status: Int, method: String) async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let echo = try decodeEcho(try await client.execute(OutboundRequest(
                method: .post, url: server.redirect(to: "/echo", status: status),
                headers: ["Content-Type": "text/plain"], body: Data("payload".utf8), followRedirects: true)))
            #expect(echo.method == method)
            #expect(echo.body == (method == "POST" ? "payload" : ""))
            #expect(echo.header("content-type") == (method == "POST" ? "text/plain" : nil))
        }
    }
}

@Suite(
    "Outbound security: https redirects",
    .timeLimit(.minutes(1)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: opensslPath), "needs the openssl command")
)
struct HTTPSRedirectTests {
    private static func redirectResponse(to location: String) -> String {
        "HTTP/1.0 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    }

    @Test func httpsToHTTPRedirectIsRefused() async throws {
        try await withTestServer { plain in
            let tls = try await SelfSignedTLSServer.start(responses: [
                "downgrade": Self.redirectResponse(to: plain.url("/echo").absoluteString),
            ])
            defer { tls.stop() }
            let client = CurlHTTPClient(configuration: .init(
                threadCount: 1, defaultTimeout: .seconds(10), additionalCAFile: tls.certificatePath,
                allowedDestinations: .loopback))
            defer { client.shutdown() }
            let url = try #require(URL(string: "https://127.0.0.1:\(tls.port)/downgrade"))

            let error = await thrownError {
                try await client.execute(OutboundRequest(
                    url: url, headers: ["Authorization": "Bearer t0ken"], followRedirects: true))
            }
            #expect(error as? HTTPClientError
                == .redirectRejected(reason: "redirect from https to http would send the request unencrypted"))
            #expect(plain.stats.connectionCount == 0)
        }
    }

    @Test func httpsToHTTPSRedirectIsFollowed() async throws {
        let tls = try await SelfSignedTLSServer.start(responses: [
            "hop": Self.redirectResponse(to: "/final"),
            "final": "HTTP/1.0 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfinal",
        ])
        defer { tls.stop() }
        let client = CurlHTTPClient(configuration: .init(
            threadCount: 1, defaultTimeout: .seconds(10), additionalCAFile: tls.certificatePath,
            allowedDestinations: .loopback))
        defer { client.shutdown() }
        let response = try await client.execute(OutboundRequest(
            url: try #require(URL(string: "https://127.0.0.1:\(tls.port)/hop")), followRedirects: true))
        #expect(response.status == 200)
        #expect(response.bodyText == "final")
        #expect(response.url?.absoluteString == "https://127.0.0.1:\(tls.port)/final")
    }
}
