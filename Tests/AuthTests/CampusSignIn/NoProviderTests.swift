import Auth
import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// A gateway without a provider: campus sign-in's routes are there, and say so.
@Suite("Campus sign-in: no provider configured")
struct NoProviderTests {
    @Test(arguments: TestBackend.all)
    func startAndCallbackAre404AndSigninCodesAreRefused(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            #expect(try await client.json(.get, "/v1/auth/oidc/start?returnTo=/").status == .notFound)
            #expect(try await client.json(.get, "/v1/auth/oidc/callback?code=x&state=y").status == .notFound)
            let info = try await client.json(.get, "/v1/auth/oidc")
            #expect(info.status == .ok && info.object["enabled"] as? Bool == false && info.object["passwordSignIn"] as? String == "everyone")
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"signinCode": "abc"}"#).status == .unauthorized)
            let token = try await gateway.account("ada", role: .student)
            #expect(try await client.json(.get, "/v1/me", token: token).status == .ok, "password sign-in as before")
        }
    }
}
