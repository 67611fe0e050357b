import Foundation
import TestSupport
import Testing

/// A wrong campus sign-in setting stops `gateway serve` with a message that names it, and the
/// client secret never reaches the output.
@Suite("Campus sign-in settings at start", .serialized)
struct CampusSignInStartupTests {
    static let secret = "do-not-print-this-secret-7f3a"

    static func secretFile() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-secret-\(UUID().uuidString)")
        try Data((secret + "\n").utf8).write(to: url)
        return url.path
    }

    static func serve(_ environment: [String: String]) async throws -> GatewayBinary.Outcome {
        var env = ["GATEWAY_PUBLIC_URL": "https://gateway.example.edu", "GATEWAY_OIDC_CLIENT_ID": "campus-gateway"]
        env.merge(environment) { _, new in new }
        return try await GatewayBinary.run(
            ["serve", "--host", "127.0.0.1", "--port", "0", "--database", CommandLineTests.tempDatabase()], environment: env, timeout: 60
        )
    }

    @Test func anHTTPIssuerOffLoopbackIsRefused() async throws {
        let outcome = await try Self.serve(["GATEWAY_OIDC_ISSUER": "http://idp.example.edu", "GATEWAY_OIDC_CLIENT_SECRET_FILE": try Self.secretFile()])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("GATEWAY_OIDC_ISSUER must be https"), "stderr was: \(outcome.stderr)")
    }

    @Test func aMissingSecretFileIsNamed() async throws {
        let outcome = await try Self.serve(["GATEWAY_OIDC_ISSUER": "https://idp.example.edu", "GATEWAY_OIDC_CLIENT_SECRET_FILE": "/nonexistent/secret"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("GATEWAY_OIDC_CLIENT_SECRET_FILE"), "stderr was: \(outcome.stderr)")
    }

    @Test func anUnreachableDiscoveryDocumentStopsTheStartWithoutPrintingTheSecret() async throws {
        // A loopback port nobody listens on: the discovery document can't be read.
        let socket = try LoopbackListener.open(host: "127.0.0.1")
        close(socket.descriptor)
        let outcome = await try Self.serve([
            "GATEWAY_OIDC_ISSUER": "http://127.0.0.1:\(socket.port)", "GATEWAY_OIDC_CLIENT_SECRET_FILE": try Self.secretFile(),
        ])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("GATEWAY_OIDC_ISSUER") && outcome.stderr.contains("discovery document"), "stderr was: \(outcome.stderr)")
        #expect(!outcome.stderr.contains(Self.secret) && !outcome.stdout.contains(Self.secret))
    }

    @Test func passwordSignInModesNeedAProvider() async throws {
        let outcome = try await GatewayBinary.run(
            ["serve", "--port", "0", "--database", CommandLineTests.tempDatabase()], environment: ["GATEWAY_PASSWORD_SIGNIN": "admins-only"],
            timeout: 60
        )
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("GATEWAY_PASSWORD_SIGNIN"), "stderr was: \(outcome.stderr)")
    }
}
