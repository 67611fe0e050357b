import Auth
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Campus sign-in in a browser, end to end through the real router on both backends, against a
/// stand-in provider: the flow, a second sign-in, replays, another browser, bad returnTo, and
/// every bad ID token the stand-in can mint.
@Suite("Campus sign-in: the browser flow")
struct CampusSignInFlowTests {
    @Test(arguments: TestBackend.all)
    func theWholeFlowSignsInAndASecondSignInReachesTheSameAccount(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            provider.signIn(.init(subject: "s-ada", preferredUsername: "ada", email: "Ada@Campus.Example", name: "Ada Lovelace"))
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                let started = try await CampusGateway.start(client, returnTo: "/schedule?term=2026-fall")
                // The authorization request a provider expects, and a cookie bound to this browser.
                let query = URLComponents(url: started.authorizeURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let items = Dictionary(query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
                #expect(items["response_type"] == "code" && items["client_id"] == OpenIDStandIn.clientID)
                #expect(items["redirect_uri"] == "http://gateway.test/v1/auth/oidc/callback")
                #expect(items["scope"]?.split(separator: " ").sorted() == ["email", "openid", "profile"])
                #expect(items["code_challenge_method"] == "S256" && (items["code_challenge"]?.count ?? 0) == 43)
                #expect((items["state"]?.count ?? 0) >= 22 && (items["nonce"]?.count ?? 0) >= 22, "128 bits at least")
                #expect(items["state"] != items["nonce"])
                #expect(started.setCookie.contains("HttpOnly") && started.setCookie.contains("SameSite=Lax"))
                #expect(started.setCookie.contains("Path=/v1/auth/oidc"))

                let ending = try await CampusGateway.callback(client, try await CampusGateway.authorize(started), cookie: started.cookie)
                #expect(ending.path == "/schedule?term=2026-fall")
                _ = try #require(ending.signInCode, "ended at \(ending.location)")
                let codeCookie = try #require(ending.codeCookie, "the callback binds the code to this browser")
                #expect(codeCookie.count > "cg_signin_code=".count + 40)
                let issued = try await CampusGateway.redeem(client, ending)
                #expect(issued.status == .created)
                #expect(issued.headers[.setCookie]?.hasPrefix("cg_signin_code=;") == true, "the code cookie is cleared once used")
                let token = try #require(issued.object["token"] as? String)
                #expect(token.hasPrefix("cgt_") && issued.object["tokenType"] as? String == "Bearer")
                let me = try await client.json(.get, "/v1/me", token: token)
                #expect(me.status == .ok)
                #expect(me.object["username"] as? String == "ada" && me.object["role"] as? String == "student")
                #expect(me.object["email"] as? String == "ada@campus.example", "a verified email is kept")
                let id = try #require(me.object["id"] as? Int)

                // A second sign-in of the same person reaches the same account.
                let again = try await CampusGateway.signIn(client)
                let second = try await CampusGateway.redeem(client, again)
                let meAgain = try await client.json(.get, "/v1/me", token: try #require(second.object["token"] as? String))
                #expect(meAgain.object["id"] as? Int == id)
                // It has no password: password routes say so.
                let change = try await client.json(
                    .put, "/v1/me/password", body: #"{"currentPassword": "x", "newPassword": "a long new password 1"}"#, token: token
                )
                #expect(change.status == .conflict && change.body.contains("no-password"))
                let byPassword = try await client.json(.post, "/v1/auth/token", body: #"{"username": "ada", "password": ""}"#)
                #expect(byPassword.status == .forbidden)
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func aSignInCodeWorksOnceAndForAMinute(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                let ending = try await CampusGateway.signIn(client)
                let code = try #require(ending.signInCode)
                #expect(try await CampusGateway.redeem(client, ending).status == .created)
                let twice = try await CampusGateway.redeem(client, code, cookie: ending.codeCookie)
                #expect(twice.status == .unauthorized && twice.contentType == "application/problem+json")
                #expect(try await CampusGateway.redeem(client, "made-up", cookie: ending.codeCookie).status == .unauthorized)

                let late = try await CampusGateway.signIn(client)
                gateway.clock.advance(by: 61)
                #expect(try await CampusGateway.redeem(client, late).status == .unauthorized, "expired after 60 seconds")
            }
        }
    }

    /// Login CSRF: an attacker finishes a sign-in with their own provider session, keeps the
    /// `#signin=` link, and sends it to a victim. The victim's browser has no code cookie (or
    /// its own, of another sign-in), so the code is refused, spent, and the victim's session
    /// stays theirs.
    @Test(arguments: TestBackend.all)
    func aSignInCodeIsRedeemableOnlyByTheBrowserItWasHandedTo(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                provider.signIn(.init(subject: "s-victim", preferredUsername: "victim"))
                let victims = try await CampusGateway.signIn(client)
                let victimToken = try #require(try await CampusGateway.redeem(client, victims).object["token"] as? String)

                for (name, cookie) in [
                    ("no code cookie", nil), ("another sign-in's cookie", victims.codeCookie),
                    ("a made-up cookie", "cg_signin_code=" + SignInSecrets.random()),
                ] as [(String, String?)] {
                    provider.signIn(.init(subject: "s-attacker", preferredUsername: "attacker"))
                    let attackers = try await CampusGateway.signIn(client)
                    let refused = try await CampusGateway.redeem(client, try #require(attackers.signInCode), cookie: cookie)
                    #expect(refused.status == .badRequest, "\(name): \(refused.status)")
                    #expect(refused.contentType == "application/problem+json")
                    #expect(refused.object["type"] as? String == "/problems/signin-not-yours", "\(name)")
                    #expect(refused.object["token"] == nil && refused.headers[.setCookie] == nil, "\(name)")
                    // The code is spent: even the browser it was handed to can no longer use it.
                    #expect(try await CampusGateway.redeem(client, attackers).status == .unauthorized, "\(name)")
                }
                // And the victim is still signed in as themselves.
                let me = try await client.json(.get, "/v1/me", token: victimToken)
                #expect(me.status == .ok && me.object["username"] as? String == "victim")
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func aCallbackInAnotherBrowserOrAgainSignsNobodyIn(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                // Login CSRF: the attacker's callback URL opened in the victim's browser, which
                // holds no cookie for that flow (or a cookie of a flow of its own).
                let attackers = try await CampusGateway.start(client)
                let callback = try await CampusGateway.authorize(attackers)
                let victims = try await CampusGateway.start(client)
                let crossed = try await CampusGateway.callback(client, callback, cookie: victims.cookie)
                #expect(crossed.error == "state" && crossed.signInCode == nil)
                let none = try await CampusGateway.callback(client, try await CampusGateway.authorize(try await CampusGateway.start(client)), cookie: nil)
                #expect(none.error == "state")

                // A replayed callback: the first one signs in, the same URL again does not.
                let started = try await CampusGateway.start(client)
                let url = try await CampusGateway.authorize(started)
                #expect(try await CampusGateway.callback(client, url, cookie: started.cookie).signInCode != nil)
                let replay = try await CampusGateway.callback(client, url, cookie: started.cookie)
                #expect(replay.error == "state" && replay.signInCode == nil)
                #expect(replay.path == "/", "an unknown state has no returnTo of its own")

                // A flow left too long.
                let slow = try await CampusGateway.start(client)
                let slowURL = try await CampusGateway.authorize(slow)
                gateway.clock.advance(by: 601)
                #expect(try await CampusGateway.callback(client, slowURL, cookie: slow.cookie).error == "state")
            }
        }
    }

    /// Starts write a row each: they are counted per network (an IPv6 /64 is one subscriber,
    /// however many addresses it rotates through), and the live flows of all networks together
    /// are bounded.
    @Test(arguments: TestBackend.all)
    func startsAreCountedPerNetworkAndLiveFlowsAreBounded(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider, maximumLiveFlows: 45)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                func start(from address: String) async throws -> HTTPResponse.Status {
                    try await client.execute(uri: "/v1/auth/oidc/start", method: .get, headers: TestClientAddress.from(address)).status
                }
                var statuses: [HTTPResponse.Status] = []
                for n in 0..<40 { statuses.append(try await start(from: "2001:db8:7:1:\(String(n, radix: 16)):0:0:\(n + 1)")) }
                #expect(statuses.prefix(30).allSatisfy { $0 == .found }, "\(statuses)")
                #expect(statuses.suffix(10).allSatisfy { $0 == .tooManyRequests }, "one /64 is one network: \(statuses)")
                // Another network is not held back by the first.
                for n in 0..<15 { #expect(try await start(from: "198.51.100.\(n + 1)") == .found) }
                // 45 flows are waiting for their callbacks: the next start waits, from anywhere.
                let full = try await client.json(.get, "/v1/auth/oidc/start", headers: TestClientAddress.from("203.0.113.7"))
                #expect(full.status == .serviceUnavailable && full.headers[.retryAfter] != nil, "\(full.status)")
                // Flows that expired no longer count.
                gateway.clock.advance(by: 601)
                #expect(try await start(from: "203.0.113.7") == .found)
            }
        }
    }

    @Test(arguments: ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "schedule", "/a#b"])
    func anOffSiteReturnToIsRefusedAtStart(_ returnTo: String) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(.sqlite, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                let encoded = returnTo.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let reply = try await client.json(.get, "/v1/auth/oidc/start?returnTo=\(encoded)")
                #expect(reply.status == .badRequest && reply.body.contains("returnTo"))
                #expect(reply.headers[.setCookie] == nil)
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func theProviderRefusingEndsAtProviderRefused(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                provider.refuseNext()
                let ending = try await CampusGateway.signIn(client, returnTo: "/grades")
                #expect(ending.location == "/grades#signin-error=provider-refused")
                #expect(provider.tokenRequests == 0, "no code, no exchange")
            }
        }
    }

    static let badTokens: [(OpenIDStandIn.Minting, String)] = [
        (.wrongNonce, "wrong nonce"), (.wrongAudience, "wrong audience"), (.expired, "expired"), (.algNone, "alg none"),
        (.unknownKey, "unknown key"), (.otherIssuer, "another issuer"), (.hmac, "HS256 under the public key"),
    ]

    @Test(arguments: TestBackend.all)
    func everyBadIDTokenEndsAtTokenInvalidAndSignsNobodyIn(_ backend: TestBackend) async throws {
        try await OpenIDStandIn.with { provider in
            let gateway = try await CampusGateway.make(backend, provider: provider)
            defer { gateway.cleanUp() }
            try await gateway.withRouter { client in
                for (minting, name) in Self.badTokens {
                    provider.signIn(.init(subject: "s-mallory", preferredUsername: "mallory"), minting: minting)
                    let ending = try await CampusGateway.signIn(client, returnTo: "/grades")
                    #expect(ending.location == "/grades#signin-error=token-invalid", "\(name): \(ending.location)")
                }
                #expect(try await gateway.auth.accountCount() == 0, "no account was made")
                provider.signIn(.init(subject: "s-mallory", preferredUsername: "mallory"))
                #expect(try await CampusGateway.signIn(client).signInCode != nil, "the same person with a good token gets in")
            }
        }
    }
}
