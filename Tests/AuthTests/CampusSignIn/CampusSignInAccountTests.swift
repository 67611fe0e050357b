import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// What campus sign-in does to accounts: roles from the admin group, disabled accounts, the
/// provider's access tokens, key rotation and floods of unknown keys, admin links, admins-only
/// password sign-in, a flow across instances, and a gateway without a provider.
@Suite("Campus sign-in: accounts, tokens and keys")
struct CampusSignInAccountTests {
    static func token(_ client: some TestClientProtocol) async throws -> String {
        return try #require(try await CampusGateway.redeem(client, try await CampusGateway.signIn(client)).object["token"] as? String)
    }

    @Test(arguments: TestBackend.all)
    func theAdminGroupAddsAndRemovesTheAdminRoleAtEachSignIn(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                provider.signIn(.init(subject: "s-grace", preferredUsername: "grace", groups: ["staff", "gateway-admins"]))
                let admin = try await Self.token(client)
                #expect(try await client.json(.get, "/v1/me", token: admin).object["role"] as? String == "admin")
                #expect(try await client.json(.get, "/v1/admin/accounts", token: admin).status == .ok)

                provider.signIn(.init(subject: "s-grace", preferredUsername: "grace", groups: ["staff"]))
                let student = try await Self.token(client)
                #expect(try await client.json(.get, "/v1/me", token: student).object["role"] as? String == "student")
                #expect(try await client.json(.get, "/v1/admin/accounts", token: student).status == .forbidden)
                #expect(try await client.json(.get, "/v1/admin/accounts", token: admin).status == .forbidden, "roles are read on every request")
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func aDisabledAccountCantSignInAndItsProviderTokensStopWorking(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                provider.signIn(.init(subject: "s-eve", preferredUsername: "eve"))
                let token = try await Self.token(client)
                let id = try #require(try await client.json(.get, "/v1/me", token: token).object["id"] as? Int)
                let access = try await provider.accessToken(subject: "s-eve")
                #expect(try await client.json(.get, "/v1/me", token: access).status == .ok)

                let root = try await gateway.auth.testAccount("root", role: .admin)
                let disabled = try await client.json(.patch, "/v1/admin/accounts/\(id)", body: #"{"disabled": true}"#, token: root)
                #expect(disabled.status == .ok)
                #expect(try await CampusGateway.signIn(client).error == "provider-refused")
                #expect(try await client.json(.get, "/v1/me", token: access).status == .unauthorized)
                #expect(try await client.json(.get, "/v1/me", token: token).status == .unauthorized)
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func theProvidersAccessTokensWorkOnSignedInRoutes(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                provider.signIn(.init(subject: "s-alan", preferredUsername: "alan"))
                let browser = try await Self.token(client)
                let id = try await client.json(.get, "/v1/me", token: browser).object["id"] as? Int

                let access = try await provider.accessToken(subject: "s-alan")
                let me = try await client.json(.get, "/v1/me", token: access)
                #expect(me.status == .ok && me.object["id"] as? Int == id, "the app reaches the browser's account")
                // An app-only person gets an account too.
                let fresh = try await client.json(.get, "/v1/me", token: try await provider.accessToken(subject: "s-app-only"))
                #expect(fresh.status == .ok && fresh.object["id"] as? Int != id)

                for (name, token) in [
                    ("expired", try await provider.accessToken(subject: "s-alan", expiresIn: -300)),
                    ("another audience", try await provider.accessToken(subject: "s-alan", audience: "another-api")),
                    ("alg none", try await provider.accessToken(subject: "s-alan", minting: .algNone)),
                    ("HS256", try await provider.accessToken(subject: "s-alan", minting: .hmac)),
                    ("unknown key", try await provider.accessToken(subject: "s-alan", minting: .unknownKey)),
                    // RFC 9068: an ID token of this client, or an untyped token for the client id,
                    // is no access token.
                    ("an ID token", try await provider.idToken(subject: "s-alan")),
                    ("typ JWT", try await provider.accessToken(subject: "s-alan", type: "JWT")),
                    ("no typ", try await provider.accessToken(subject: "s-alan", type: nil)),
                    ("a nonce", try await provider.accessToken(subject: "s-alan", extra: ["nonce": .string("n-1")])),
                    ("garbage", "a.b.c"),
                ] {
                    let reply = try await client.json(.get, "/v1/me", token: token)
                    #expect(reply.status == .unauthorized, "\(name)")
                    #expect(reply.contentType == "application/problem+json")
                }
                #expect(try await client.json(.get, "/v1/me", token: browser).status == .ok, "gateway tokens keep working")
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func aRotatedKeyWorksAndAFloodOfUnknownKeysFetchesAtMostEveryTenSeconds(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                #expect(try await client.json(.get, "/v1/me", token: try await provider.accessToken(subject: "s-r")).status == .ok)
                let fetched = provider.jwksFetches
                // A flood of made-up key ids: one fetch at most in ten seconds.
                for _ in 0..<25 {
                    let reply = try await client.json(.get, "/v1/me", token: try await provider.accessToken(subject: "s-r", minting: .unknownKey))
                    #expect(reply.status == .unauthorized)
                }
                #expect(provider.jwksFetches - fetched <= 1, "\(provider.jwksFetches - fetched) fetches")

                // The provider rotates: once ten seconds have passed, new tokens work.
                provider.rotateKey()
                gateway.clock.advance(by: 11)
                #expect(try await client.json(.get, "/v1/me", token: try await provider.accessToken(subject: "s-r")).status == .ok)
                provider.signIn(.init(subject: "s-r"))
                #expect(try await CampusGateway.signIn(client).signInCode != nil, "ID tokens with the new key too")
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func anAdminLinksAPasswordAccountWhichKeepsItsRole(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                let root = try await gateway.auth.testAccount("root", role: .admin)
                let old = try await gateway.auth.testAccount("old-student", role: .student)
                let oldID = try #require(try await client.json(.get, "/v1/me", token: old).object["id"] as? Int)
                let link = try await client.json(.put, "/v1/admin/accounts/\(oldID)/campus-identity", body: #"{"subject": "s-history"}"#, token: root)
                #expect(link.status == .ok && link.object["subject"] as? String == "s-history")
                #expect(try await client.json(.put, "/v1/admin/accounts/\(oldID)/campus-identity", body: #"{"subject": "s-history"}"#, token: old)
                    .status == .forbidden)

                provider.signIn(.init(subject: "s-history", preferredUsername: "someone-else", groups: ["gateway-admins"]))
                let token = try await Self.token(client)
                let me = try await client.json(.get, "/v1/me", token: token)
                #expect(me.object["id"] as? Int == oldID && me.object["username"] as? String == "old-student")
                #expect(me.object["role"] as? String == "student", "a password account keeps its own role")

                // The identity can't be linked to a second account, nor the account to a second identity.
                let other = try await gateway.auth.testAccount("other", role: .student)
                let otherID = try #require(try await client.json(.get, "/v1/me", token: other).object["id"] as? Int)
                #expect(try await client.json(.put, "/v1/admin/accounts/\(otherID)/campus-identity", body: #"{"subject": "s-history"}"#, token: root)
                    .status == .conflict)
                #expect(try await client.json(.put, "/v1/admin/accounts/\(oldID)/campus-identity", body: #"{"subject": "s-new"}"#, token: root)
                    .status == .conflict)
                #expect(try await client.json(.put, "/v1/admin/accounts/999999/campus-identity", body: #"{"subject": "s-x"}"#, token: root)
                    .status == .notFound)
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func adminsOnlyTurnsOffStudentPasswordsButNotAdmins(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider, passwordSignIn: .adminsOnly)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                _ = try await gateway.auth.createAccount(username: "root", email: nil, password: "correct horse battery", role: .admin)
                _ = try await gateway.auth.createAccount(username: "pat", email: nil, password: "correct horse battery", role: .student)
                #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username": "root", "password": "correct horse battery"}"#)
                    .status == .created)
                let student = try await client.json(.post, "/v1/auth/token", body: #"{"username": "pat", "password": "correct horse battery"}"#)
                #expect(student.status == .forbidden && student.body.contains("campus"))
                let signUp = try await client.json(.post, "/v1/accounts", body: #"{"username": "newbie", "password": "correct horse battery"}"#)
                #expect(signUp.status == .forbidden)
                let info = try await client.json(.get, "/v1/auth/oidc")
                #expect(info.object["enabled"] as? Bool == true && info.object["passwordSignIn"] as? String == "admins-only")
                #expect(try await CampusGateway.signIn(client).signInCode != nil, "students use the provider")
            }
        }
    }

    @Test func aFlowStartedOnOneInstanceFinishesOnAnotherOnPostgreSQL() async throws {
        try await OpenIDStandIn.with { provider in
            let first = try await CampusGateway.make(.postgres, provider: provider)
            defer { first.cleanUp() }
            let second = try first.secondInstance(provider: provider)
            try await first.withRouter { one in
                try await second.withRouter { two in
                    let started = try await CampusGateway.start(one)
                    let ending = try await CampusGateway.callback(two, try await CampusGateway.authorize(started), cookie: started.cookie)
                    let code = try #require(ending.signInCode, "\(ending.location)")
                    #expect(try await CampusGateway.redeem(one, code, cookie: ending.codeCookie).status == .created, "and the code works on the first")
                }
            }
        }
    }
}
