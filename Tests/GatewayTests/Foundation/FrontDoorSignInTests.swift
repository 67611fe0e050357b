import GatewayHTTP
import GatewayApp
import Auth
import Foundation
import GatewayCore
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// Sign-in behind the application's front door: the throttle counts the address a configured
/// proxy saw, forwarded headers count only from configured proxies, and `--require-https`.
@Suite("Sign-in behind the front door")
struct FrontDoorSignInTests {
    /// A live gateway whose throttle allows three failures per (user, address), with `hal`
    /// signed up, proxies trusted as given.
    static func guessedAtGateway(trusting proxies: [AddressRange]) throws -> TestGateway {
        try TestGateway {
            $0.trustedProxies = proxies
            $0.loginThrottle = .init(failuresPerUsername: 3, failuresPerUsernameOverall: 100, failuresPerAddress: 100, window: 600)
        }
    }

    static let hal = #"{"username":"hal","password":"a fine passphrase"}"#
    static let guess = #"{"username":"hal","password":"guess"}"#

    static func forwarded(_ value: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: value] }

    @Test func behindAProxyTheThrottleCountsTheAddressTheProxySawNotOneTheClientWrote() async throws {
        let gateway = try Self.guessedAtGateway(trusting: AddressRange.loopback)
        defer { gateway.cleanUp() }
        try await gateway.withLiveServer { client in
            _ = try await client.json(.post, "/v1/accounts", body: Self.hal)
            for n in 0..<3 {
                // A client-written first hop changes every time; the proxy's own hop does not.
                #expect(try await client.json(.post, "/v1/auth/token", body: Self.guess, headers: Self.forwarded("198.51.100.\(n), 203.0.113.9")).status == .forbidden)
            }
            #expect(try await client.json(.post, "/v1/auth/token", body: Self.guess, headers: Self.forwarded("198.51.100.99, 203.0.113.9")).status == .tooManyRequests)
            #expect(try await client.json(.post, "/v1/auth/token", body: Self.hal, headers: Self.forwarded("192.0.2.1")).status == .created)
        }
    }
    /// A peer that is not a configured proxy writes X-Forwarded-For itself: it is ignored, so
    /// rotating it doesn't give a guesser fresh addresses (before, `--trust-proxy` believed any peer).
    @Test func forwardedHeadersCountOnlyFromConfiguredProxies() async throws {
        let gateway = try Self.guessedAtGateway(trusting: [AddressRange("10.0.0.0/8")!])
        defer { gateway.cleanUp() }
        try await gateway.withLiveServer { client in
            _ = try await client.json(.post, "/v1/accounts", body: Self.hal)
            for n in 0..<3 {
                #expect(try await client.json(.post, "/v1/auth/token", body: Self.guess, headers: Self.forwarded("198.51.100.\(n)")).status == .forbidden)
            }
            #expect(try await client.json(.post, "/v1/auth/token", body: Self.guess, headers: Self.forwarded("198.51.100.77")).status == .tooManyRequests)
        }
    }
    /// `--require-https` behind a proxy: X-Forwarded-Proto counts only from a configured proxy,
    /// and the admin's deep readiness check is not a plain-HTTP probe.
    @Test(arguments: GatewayBackend.all) func requireHTTPSBelievesOnlyConfiguredProxiesAndGuardsDeepReadiness(_ backend: GatewayBackend) async throws {
        let https: HTTPFields = [HTTPField.Name("X-Forwarded-Proto")!: "https"]
        let untrusted = try await TestGateway.make(backend) { $0.requireHTTPS = true; $0.trustedProxies = [AddressRange("10.0.0.0/8")!] }
        defer { untrusted.cleanUp() }
        try await untrusted.withLiveServer { client async throws in
            #expect(try await client.json(.get, "/healthz").status == .ok)
            #expect(try await client.json(.get, "/readyz").status == .ok)
            #expect(try await client.json(.get, "/v1/registration/subjects", headers: https).status == .forbidden)
            #expect(try await client.json(.get, "/readyz?deep=1").status == .forbidden)
        }
        let trusted = try await TestGateway.make(backend) { $0.requireHTTPS = true; $0.trustedProxies = AddressRange.loopback }
        defer { trusted.cleanUp() }
        try await trusted.withLiveServer { client async throws in
            #expect(try await client.json(.get, "/v1/registration/subjects", headers: https).status == .ok)
            #expect(try await client.json(.get, "/v1/registration/subjects").status == .forbidden)
        }
    }
}
