import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// Bearer tokens end when they should: at the end of the lifetime asked for (JSON and Basic
/// sign-ins, under a manual clock), and at once when revoked, on the instance that revoked them
/// and on a second instance on the same database that had just accepted them: Auth's routes
/// alone (``AuthGateway``), each instance with connections of its own.
@Suite("Token lifetimes and revocation")
struct TokenLifetimeTests {
    static let signUp = #"{"username": "tess", "password": "a fine passphrase"}"#

    @Test(arguments: TestBackend.all) func aTokenPastItsLifetimeIsRefused(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        let clock = gateway.clock
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/accounts", body: Self.signUp).status == .created)
            let issued = try await client.json(.post, "/v1/auth/token", body: #"{"username": "tess", "password": "a fine passphrase", "lifetimeMinutes": 5}"#)
            #expect(issued.status == .created)
            let token = try #require(issued.object["token"] as? String)
            let basic = "Basic " + Data("tess:a fine passphrase".utf8).base64EncodedString()
            let basicIssued = try await client.json(.post, "/v1/auth/token?lifetimeMinutes=2", headers: [.authorization: basic])
            let shortToken = try #require(basicIssued.object["token"] as? String)
            let longToken = try #require(
                try await client.json(.post, "/v1/auth/token", body: #"{"username": "tess", "password": "a fine passphrase", "lifetimeMinutes": 60}"#).object["token"] as? String
            )

            #expect(try await client.json(.get, "/v1/me", token: shortToken).status == .ok)
            clock.advance(by: 2 * 60 + 1)
            #expect(try await client.json(.get, "/v1/me", token: shortToken).status == .unauthorized, "the Basic sign-in's 2 minutes are over")
            #expect(try await client.json(.get, "/v1/me", token: token).status == .ok, "the 5-minute token still works")

            clock.advance(by: 3 * 60 - 2)
            #expect(try await client.json(.get, "/v1/me", token: token).status == .ok, "a second before its end")
            clock.advance(by: 2)
            let expired = try await client.json(.get, "/v1/me", token: token)
            #expect(expired.status == .unauthorized)
            #expect(expired.object["type"] as? String == "/problems/unauthenticated")
            #expect(try await client.json(.delete, "/v1/auth/token", token: token).status == .unauthorized, "an expired token can't even sign out")
            // Refused on every kind of route, not only /v1/me.
            #expect(try await client.json(.put, "/v1/me/password", body: #"{"currentPassword": "a fine passphrase", "newPassword": "another fine passphrase"}"#, token: token).status == .unauthorized)
            #expect(try await client.json(.get, "/v1/admin/accounts", token: token).status == .unauthorized)
            #expect(try await client.json(.get, "/v1/me", token: longToken).status == .ok, "a longer token of the same account lives on")
        }
    }

    @Test(arguments: TestBackend.all) func revocationIsImmediateOnEveryInstance(_ backend: TestBackend) async throws {
        let first = try await AuthGateway.make(backend)
        defer { first.cleanUp() }
        let second = try first.secondInstance()
        defer { second.cleanUp() }
        let tokens = Captured<[String]>([])
        try await first.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/accounts", body: Self.signUp).status == .created)
            var issued: [String] = []
            for _ in 0..<2 {
                let reply = try await client.json(.post, "/v1/auth/token", body: #"{"username": "tess", "password": "a fine passphrase"}"#)
                issued.append(try #require(reply.object["token"] as? String))
            }
            tokens.set(issued)
        }
        let (revoked, kept) = (tokens.value[0], tokens.value[1])
        // The second instance knows both tokens (and has just used them) before the revocation.
        try await second.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/me", token: revoked).status == .ok)
            #expect(try await client.json(.get, "/v1/me", token: kept).status == .ok)
        }
        try await first.withRouter { client async throws in
            #expect(try await client.json(.delete, "/v1/auth/token", token: revoked).status == .noContent)
            // The very next request with it, on this instance.
            #expect(try await client.json(.get, "/v1/me", token: revoked).status == .unauthorized)
            #expect(try await client.json(.delete, "/v1/auth/token", token: revoked).status == .unauthorized, "revoking twice is refused too")
            #expect(try await client.json(.get, "/v1/me", token: kept).status == .ok, "only the presented token is revoked")
        }
        try await second.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/me", token: revoked).status == .unauthorized, "the other instance refuses it at once")
            #expect(try await client.json(.get, "/v1/admin/accounts", token: revoked).status == .unauthorized)
            #expect(try await client.json(.get, "/v1/me", token: kept).status == .ok)
            // And the other way round: signed out on the second, refused on the first.
            #expect(try await client.json(.delete, "/v1/auth/token", token: kept).status == .noContent)
        }
        try await first.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/me", token: kept).status == .unauthorized)
        }
    }
}
