import AuthTestSupport
import GatewayHTTP
import Auth
import Foundation
import GatewayCore
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// Sign-up, tokens, Basic credentials, roles and the sign-in throttle over the Auth module's
/// routes, mounted alone (``AuthGateway``).
@Suite("Accounts and tokens through the real router")
struct AuthFlowTests {
    @Test(arguments: TestBackend.all) func signUpAnswers201WithTheAccountAndNoHash(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let reply = try await client.json(.post, "/v1/accounts", body: #"{"username":"Ada.L","password":"analytical-engine","email":"ada@example.edu"}"#)
            #expect(reply.status == .created)
            #expect(reply.object["username"] as? String == "ada.l")
            #expect((reply.object["id"] as? Int ?? 0) > 0)
            #expect(reply.object["role"] as? String == "student")
            #expect(reply.object["email"] as? String == "ada@example.edu")
            #expect(!reply.body.contains("argon2"))
            #expect(!reply.body.lowercased().contains("hash"))
            #expect(!reply.body.contains("analytical-engine"))
        }
    }

    @Test(arguments: TestBackend.all) func signUpRejectsWeakPasswordsTakenNamesAndRoleEscalation(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let short = try await client.json(.post, "/v1/accounts", body: #"{"username":"bob","password":"short"}"#)
            #expect(short.status == .unprocessableContent)
            #expect(short.object["type"] as? String == "/problems/validation-failed")
            let common = try await client.json(.post, "/v1/accounts", body: #"{"username":"bob","password":"password123"}"#)
            #expect(common.status == .unprocessableContent)
            #expect((common.object["detail"] as? String)?.contains("common") == true)

            let first = try await client.json(.post, "/v1/accounts", body: #"{"username":"bob","password":"a fine passphrase","role":"admin"}"#)
            #expect(first.status == .created)
            #expect(first.object["role"] as? String == "student")
            let again = try await client.json(.post, "/v1/accounts", body: #"{"username":"BOB","password":"another passphrase"}"#)
            #expect(again.status == .conflict)
            #expect(again.object["type"] as? String == "/problems/account-exists")

            let missing = try await client.json(.post, "/v1/accounts", body: #"{"username":"carol"}"#)
            #expect(missing.status == .badRequest)
            #expect((missing.object["invalidFields"] as? [String]) == ["password"])
        }
    }

    @Test(arguments: TestBackend.all) func tokenIssueUseExpiryAndRevocation(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        let clock = gateway.clock
        try await gateway.withRouter { client in
            _ = try await client.json(.post, "/v1/accounts", body: #"{"username":"dana","password":"a fine passphrase"}"#)
            let issued = try await client.json(.post, "/v1/auth/token", body: #"{"username":"dana","password":"a fine passphrase","lifetimeMinutes":30}"#)
            #expect(issued.status == .created)
            let token = try #require(issued.object["token"] as? String)
            let expiresAt = try #require(issued.object["expiresAt"] as? String)
            let expiry = try #require(try? Date(expiresAt, strategy: .iso8601))
            #expect(abs(expiry.timeIntervalSince(clock.now()) - 30 * 60) < 2)

            let me = try await client.json(.get, "/v1/me", token: token)
            #expect(me.status == .ok)
            #expect((me.object["id"] as? Int ?? 0) > 0)
            #expect(me.object["username"] as? String == "dana")

            clock.advance(by: 29 * 60)
            #expect(try await client.json(.get, "/v1/me", token: token).status == .ok)
            clock.advance(by: 61)
            let expired = try await client.json(.get, "/v1/me", token: token)
            #expect(expired.status == .unauthorized)
            #expect(expired.contentType == "application/problem+json")

            let second = try await client.json(.post, "/v1/auth/token", body: #"{"username":"dana","password":"a fine passphrase"}"#)
            let token2 = try #require(second.object["token"] as? String)
            #expect(try await client.json(.delete, "/v1/auth/token", token: token2).status == .noContent)
            #expect(try await client.json(.get, "/v1/me", token: token2).status == .unauthorized)
        }
    }

    @Test(arguments: TestBackend.all) func defaultLifetimeIs120MinutesAndOutOfRangeIsRejected(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        let clock = gateway.clock
        try await gateway.withRouter { client in
            _ = try await client.json(.post, "/v1/accounts", body: #"{"username":"erin","password":"a fine passphrase"}"#)
            let issued = try await client.json(.post, "/v1/auth/token", body: #"{"username":"erin","password":"a fine passphrase"}"#)
            let expiry = try #require((issued.object["expiresAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(abs(expiry.timeIntervalSince(clock.now()) - 120 * 60) < 2)
            let tooLong = try await client.json(.post, "/v1/auth/token", body: #"{"username":"erin","password":"a fine passphrase","lifetimeMinutes":999999}"#)
            #expect(tooLong.status == .unprocessableContent)
            let zero = try await client.json(.post, "/v1/auth/token", body: #"{"username":"erin","password":"a fine passphrase","lifetimeMinutes":0}"#)
            #expect(zero.status == .unprocessableContent)
        }
    }

    @Test(arguments: TestBackend.all) func wrongPasswordAndUnknownUserAnswerTheSame403(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            _ = try await client.json(.post, "/v1/accounts", body: #"{"username":"frank","password":"a fine passphrase"}"#)
            let wrong = try await client.json(.post, "/v1/auth/token", body: #"{"username":"frank","password":"not the passphrase"}"#)
            let unknown = try await client.json(.post, "/v1/auth/token", body: #"{"username":"nobody","password":"not the passphrase"}"#)
            #expect(wrong.status == .forbidden)
            #expect(unknown.status == .forbidden)
            var a = wrong.object, b = unknown.object
            a.removeValue(forKey: "requestId"); b.removeValue(forKey: "requestId")
            #expect(NSDictionary(dictionary: a).isEqual(to: b))
            #expect(a["type"] as? String == "/problems/invalid-credentials")
        }
    }

    @Test(arguments: TestBackend.all) func httpBasicIssuesATokenAndAuthenticatesRoutes(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            _ = try await client.json(.post, "/v1/accounts", body: #"{"username":"gina","password":"a fine passphrase"}"#)
            let basic = "Basic " + Data("gina:a fine passphrase".utf8).base64EncodedString()
            let issued = try await client.json(.post, "/v1/auth/token?lifetimeMinutes=5", headers: [.authorization: basic])
            #expect(issued.status == .created)
            #expect(issued.object["token"] is String)
            let me = try await client.json(.get, "/v1/me", headers: [.authorization: basic])
            #expect(me.object["username"] as? String == "gina")
            let bad = "Basic " + Data("gina:wrong".utf8).base64EncodedString()
            #expect(try await client.json(.get, "/v1/me", headers: [.authorization: bad]).status == .forbidden)
        }
    }

    @Test(arguments: TestBackend.all) func missingTokenIs401AndWrongRoleIs403(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        let student = try await gateway.account("stu", role: .student)
        let admin = try await gateway.account("root", role: .admin)
        try await gateway.withRouter { client in
            let anonymous = try await client.json(.get, "/v1/me")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(try await client.json(.get, "/v1/me", token: "cgt_not-a-real-token").status == .unauthorized)
            let forbidden = try await client.json(.get, "/v1/admin/accounts", token: student)
            #expect(forbidden.status == .forbidden)
            #expect(forbidden.object["type"] as? String == "/problems/forbidden")
            let allowed = try await client.json(.get, "/v1/admin/accounts", token: admin)
            #expect(allowed.status == .ok)
            #expect((allowed.object["items"] as? [[String: Any]])?.count == 2)
            let created = try await client.json(
                .post, "/v1/admin/accounts", body: #"{"username":"prof","password":"a fine passphrase","role":"instructor"}"#, token: admin
            )
            #expect(created.status == .created)
            #expect(created.object["role"] as? String == "instructor")
        }
    }

    @Test(arguments: TestBackend.all) func repeatedFailuresAreThrottledWithRetryAfter(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend, loginThrottle: .init(failuresPerUsername: 3, failuresPerAddress: 100, window: 600))
        defer { gateway.cleanUp() }
        let clock = gateway.clock
        try await gateway.withRouter { client in
            _ = try await client.json(.post, "/v1/accounts", body: #"{"username":"hal","password":"a fine passphrase"}"#)
            for _ in 0..<3 {
                #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"hal","password":"guess"}"#).status == .forbidden)
            }
            let throttled = try await client.json(.post, "/v1/auth/token", body: #"{"username":"hal","password":"a fine passphrase"}"#)
            #expect(throttled.status == .tooManyRequests)
            let retry = try #require(throttled.headers[.retryAfter].flatMap(Int.init))
            #expect(retry > 0 && retry <= 600)
            #expect(throttled.object["type"] as? String == "/problems/too-many-requests")
            clock.advance(by: 601)
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"hal","password":"a fine passphrase"}"#).status == .created)
        }
    }
}
