@testable import Auth
import Foundation
import GatewayCore
import Testing

/// The pure rules of campus sign-in: claim checks at their edges, return paths, usernames,
/// the issuer setting, key-set filtering and cache lifetimes.
@Suite("Campus sign-in rules")
struct CampusSignInRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let issuer = "https://sso.example.edu/realms/campus"

    static func claims(_ changes: [String: JSONValue] = [:], removing: [String] = []) -> ProviderClaims {
        var values: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string("s-1"), "aud": .string("gw"), "nonce": .string("n-1"),
            "iat": .int(Int64(now.timeIntervalSince1970)), "exp": .int(Int64(now.timeIntervalSince1970) + 300),
        ]
        values.merge(changes) { _, new in new }
        for key in removing { values[key] = nil }
        return ProviderClaims(values)
    }

    static func idToken(_ claims: ProviderClaims, now: Date = now) -> ClaimProblem? {
        do {
            try ClaimCheck.idToken(claims, issuers: [issuer], clientID: "gw", nonce: "n-1", now: now, skew: 60)
            return nil
        } catch { return error }
    }

    @Test func aGoodIDTokenPassesAndEachBrokenClaimIsNamed() {
        #expect(Self.idToken(Self.claims()) == nil)
        #expect(Self.idToken(Self.claims(["iss": .string("https://sso.example.edu/realms/other")])) == .issuer)
        #expect(Self.idToken(Self.claims(["aud": .string("someone-else")])) == .audience)
        #expect(Self.idToken(Self.claims(["nonce": .string("n-2")])) == .nonce)
        #expect(Self.idToken(Self.claims(removing: ["nonce"])) == .missingClaim("nonce"))
        #expect(Self.idToken(Self.claims(removing: ["iat"])) == .missingClaim("iat"))
        #expect(Self.idToken(Self.claims(removing: ["exp"])) == .missingClaim("exp"))
        #expect(Self.idToken(Self.claims(["sub": .string("")])) == .subject)
        #expect(Self.idToken(Self.claims(["sub": .string(String(repeating: "x", count: 256))])) == .subject)
    }

    @Test func severalAudiencesNeedAnAuthorizedPartyThatIsThisClient() {
        #expect(Self.idToken(Self.claims(["aud": .array([.string("gw"), .string("other")])])) == .authorizedParty)
        #expect(Self.idToken(Self.claims(["aud": .array([.string("gw"), .string("other")]), "azp": .string("gw")])) == nil)
        #expect(Self.idToken(Self.claims(["azp": .string("other")])) == .authorizedParty)
        #expect(Self.idToken(Self.claims(["aud": .array([.string("gw")])])) == nil)
    }

    @Test func timesAllowSixtySecondsOfSkewAndNoMore() {
        let exp = Self.now.addingTimeInterval(300)
        #expect(Self.idToken(Self.claims(), now: exp.addingTimeInterval(59)) == nil)
        #expect(Self.idToken(Self.claims(), now: exp.addingTimeInterval(60)) == .expired)
        let future = Int64(Self.now.timeIntervalSince1970) + 61
        #expect(Self.idToken(Self.claims(["iat": .int(future)])) == .issuedInTheFuture)
        #expect(Self.idToken(Self.claims(["iat": .int(future - 2)])) == nil)
        #expect(Self.idToken(Self.claims(["nbf": .int(future)])) == .notYetValid)
        #expect(Self.idToken(Self.claims(["nbf": .int(future - 2)])) == nil)
    }

    @Test func accessTokensNeedTheAPIsAudienceButNoNonce() throws {
        let access = Self.claims(["aud": .string("api://campus")], removing: ["nonce", "iat"])
        func check(_ claims: ProviderClaims, type: String?, audience: String) throws(ClaimProblem) {
            try ClaimCheck.accessToken(claims, type: type, issuers: [Self.issuer], audience: audience, clientID: "gw", now: Self.now, skew: 60)
        }
        #expect(throws: Never.self) { try check(access, type: nil, audience: "api://campus") }
        #expect(throws: Never.self) { try check(access, type: "JWT", audience: "api://campus") }
        #expect(throws: ClaimProblem.audience) { try check(access, type: "at+jwt", audience: "gw-api") }
        // With the client id as the API's audience, only a token typed as an access token passes
        // (RFC 9068 §2.1): every ID token of this client names that audience too.
        let clientAudience = Self.claims(["aud": .string("gw")], removing: ["nonce", "iat"])
        for type in ["at+jwt", "application/at+jwt", "AT+JWT"] {
            #expect(throws: Never.self, "\(type)") { try check(clientAudience, type: type, audience: "gw") }
        }
        for type in [nil, "JWT", "jwt", "id+jwt"] as [String?] {
            #expect(throws: ClaimProblem.notAnAccessToken, "\(type ?? "none")") { try check(clientAudience, type: type, audience: "gw") }
        }
        // An ID token (it carries a nonce) is never an access token, whatever its header says.
        let idToken = Self.claims()
        #expect(throws: ClaimProblem.notAnAccessToken) { try check(idToken, type: "at+jwt", audience: "gw") }
        #expect(throws: ClaimProblem.notAnAccessToken) { try check(Self.claims(["aud": .string("api://campus")]), type: nil, audience: "api://campus") }
    }

    @Test func returnToIsAPathOnThisGateway() {
        #expect(ReturnPath.validate(nil) == "/")
        #expect(ReturnPath.validate("") == "/")
        #expect(ReturnPath.validate("/?next=grades") == "/?next=grades")
        #expect(ReturnPath.validate("/admin/") == "/admin/")
        for bad in ["//evil.example", "/\\evil.example", "https://evil.example", "evil", "/a\\b", "/a#b", "/a\nb", "/" + String(repeating: "a", count: 512)] {
            #expect(ReturnPath.validate(bad) == nil, "\(bad)")
        }
    }

    @Test func usernamesPreferThePreferredUsernameThenDeriveThenFallBackToADigest() {
        let names = CampusUsername.candidates(preferred: "Ada.Lovelace", email: "ada@campus.example", issuer: Self.issuer, subject: "s-1")
        #expect(names.first == "ada.lovelace")
        #expect(names.contains("ada.lovelace-2") && names.last?.hasPrefix("campus-") == true)
        let odd = CampusUsername.candidates(preferred: "Ä", email: "x@y.example", issuer: Self.issuer, subject: "s-2")
        #expect(odd.allSatisfy { if case .success = Username.normalize($0) { true } else { false } }, "\(odd)")
        let same = CampusUsername.candidates(preferred: nil, email: nil, issuer: Self.issuer, subject: "s-2")
        #expect(same == [odd.last!], "the digest is stable per identity")
    }

    @Test func theIssuerMustBeHTTPSExceptOnLoopback() {
        #expect(CampusSignInSettings.issuerProblem(URL(string: "https://sso.example.edu/realms/campus")!) == nil)
        #expect(CampusSignInSettings.issuerProblem(URL(string: "http://127.0.0.1:8081")!) == nil)
        #expect(CampusSignInSettings.issuerProblem(URL(string: "http://localhost:8081")!) == nil)
        #expect(CampusSignInSettings.issuerProblem(URL(string: "http://[::1]:8081")!) == nil)
        #expect(CampusSignInSettings.issuerProblem(URL(string: "http://sso.example.edu")!) != nil)
        #expect(CampusSignInSettings.issuerProblem(URL(string: "http://127.0.0.1.evil.example")!) != nil)
        #expect(CampusSignInSettings.issuerProblem(URL(string: "https://sso.example.edu/?x=1")!) != nil)
    }

    @Test func theKeySetKeepsOnlyPublicSigningKeysOfTheAcceptedKinds() throws {
        let body = Data("""
            {"keys": [
              {"kty": "EC", "crv": "P-256", "kid": "ec", "x": "x", "y": "y"},
              {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
              {"kty": "RSA", "kid": "enc", "use": "enc", "n": "n", "e": "AQAB"},
              {"kty": "RSA", "kid": "private", "n": "n", "e": "AQAB", "d": "d"},
              {"kty": "EC", "crv": "P-384", "kid": "p384", "x": "x", "y": "y"},
              {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": "x"},
              {"kty": "RSA", "kid": "hs", "alg": "HS256", "n": "n", "e": "AQAB"}
            ]}
            """.utf8)
        let kept = try JSONSerialization.jsonObject(with: OpenIDProvider.publicSigningKeys(body)) as? [String: [[String: Any]]]
        #expect(Set(kept?["keys"]?.compactMap { $0["kid"] as? String } ?? []) == ["ec", "ed"])
    }

    @Test func cacheLifetimesFollowCacheControlWithinBounds() {
        #expect(OpenIDProvider.cacheLifetime(nil) == 3600)
        #expect(OpenIDProvider.cacheLifetime("public, max-age=300") == 300)
        #expect(OpenIDProvider.cacheLifetime("max-age=5") == 60)
        #expect(OpenIDProvider.cacheLifetime("max-age=9999999") == 86_400)
        #expect(OpenIDProvider.cacheLifetime("no-store") == 60)
        #expect(OpenIDProvider.holds(["a"], kid: nil) && !OpenIDProvider.holds(["a", "b"], kid: nil))
    }

    @Test func theClientSecretNeverDescribesItself() {
        let secret = ClientSecret("hunter2-secret")
        #expect("\(secret)" == "<redacted>" && String(reflecting: secret) == "<redacted>")
        #expect(!"\(CampusSignInSettings(issuer: URL(string: Self.issuer)!, clientID: "gw", clientSecret: secret, publicURL: URL(string: "https://g.example")!))"
            .contains("hunter2"))
    }

    @Test func googlesLegacyIssuerIsAcceptedForGoogleOnly() {
        let google = CampusSignInSettings(
            issuer: URL(string: "https://accounts.google.com")!, clientID: "gw", clientSecret: ClientSecret("x"), publicURL: URL(string: "https://g.example")!
        )
        #expect(google.tokenIssuers == ["https://accounts.google.com", "accounts.google.com"])
        let other = CampusSignInSettings(issuer: URL(string: Self.issuer + "/")!, clientID: "gw", clientSecret: ClientSecret("x"), publicURL: URL(string: "https://g.example")!)
        #expect(other.tokenIssuers == [Self.issuer] && other.redirectURI == "https://g.example/v1/auth/oidc/callback")
    }
}
