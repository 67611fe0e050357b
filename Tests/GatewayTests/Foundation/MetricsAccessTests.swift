import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// `/metrics` without a token answers loopback and trusted proxies only, judged by the client a
/// trusted proxy names, so a proxy forwarding the world's requests does not open them.
@Suite("Who may read the metrics")
struct MetricsAccessTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    @Test func onlyLoopbackAndTrustedProxiesWithoutAToken() async throws {
        let gateway = try TestGateway { config in config.trustedProxies = AddressRange.loopback }
        defer { gateway.cleanUp() }
        try await gateway.withLiveServer { client async throws in
            #expect(try await client.json(.get, "/metrics").status == .ok, "loopback reads them")
            let outside = try await client.json(.get, "/metrics", headers: [Self.forwardedFor: "203.0.113.9"])
            #expect(outside.status == .forbidden, "a client outside, through the proxy")
            #expect(outside.contentType == "application/problem+json")
            #expect(!outside.body.contains("http_requests"))
            #expect(try await client.json(.get, "/metrics", headers: [Self.forwardedFor: "127.0.0.1"]).status == .ok)
        }
    }

    @Test func aTokenOpensThemToAnyAddressThatHasIt() async throws {
        let gateway = try TestGateway { config in
            config.trustedProxies = AddressRange.loopback
            config.metricsToken = "metrics-token-for-the-test"
        }
        defer { gateway.cleanUp() }
        try await gateway.withLiveServer { client async throws in
            let outside: HTTPFields = [Self.forwardedFor: "203.0.113.9"]
            #expect(try await client.json(.get, "/metrics", headers: outside).status == .unauthorized)
            #expect(try await client.json(.get, "/metrics", token: "wrong", headers: outside).status == .unauthorized)
            #expect(try await client.json(.get, "/metrics", token: "metrics-token-for-the-test", headers: outside).status == .ok)
        }
    }
}
