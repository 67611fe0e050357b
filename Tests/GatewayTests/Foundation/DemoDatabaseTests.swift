import Logging
import Auth
import Foundation
import GatewayApp
import GatewayCore
import TestSupport
import Testing

/// Demo data only in a database made for it (before: `--demo`, or a forgotten
/// `GATEWAY_DEMO=1`, added `admin` / `demo-admin-pass` to a production database).
@Suite("Demo databases")
struct DemoDatabaseTests {
    static func configuration(_ path: String, demo: Bool, passwords: GatewayConfiguration.DemoPasswords = .generated) -> GatewayConfiguration {
        var config = GatewayConfiguration()
        config.databasePath = path
        config.demo = demo
        config.demoPasswords = passwords
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.logLevel = .critical
        return config
    }

    @Test func demoModeMarksANewDatabaseAndTheMarkIsEnforced() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let demoPath = dir.appendingPathComponent("demo.sqlite").path
        let demo = try GatewayApplication(configuration: Self.configuration(demoPath, demo: true))
        try await demo.seedDemoIfRequested()
        // Generated passwords: the README's don't open it.
        await #expect(throws: AuthError.invalidCredentials) {
            _ = try await demo.accounts.verifyCredentials(username: "admin", password: "demo-admin-pass", clientAddress: nil)
        }
        // The marked database refuses to serve without --demo, and serves with it.
        #expect(throws: StartupRefusal.self) { _ = try GatewayApplication(configuration: Self.configuration(demoPath, demo: false)) }
        _ = try GatewayApplication(configuration: Self.configuration(demoPath, demo: true))

        // A real database (made without --demo) refuses --demo, so no demo account lands in it.
        let realPath = dir.appendingPathComponent("real.sqlite").path
        let real = try GatewayApplication(configuration: Self.configuration(realPath, demo: false))
        _ = try await real.accounts.createAccount(username: "registrar", email: nil, password: "a long admin passphrase", role: .admin)
        #expect(throws: StartupRefusal.self) { _ = try GatewayApplication(configuration: Self.configuration(realPath, demo: true)) }
        #expect(try await real.accounts.accountCount() == 1)
    }

    /// `gateway migrate` then `serve --demo`: an empty migrated database holds no user data, so
    /// the demo takes it (before: "already holds data"). Once it holds an account, it does not.
    @Test func theDemoTakesAnEmptyMigratedDatabase() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("migrated.sqlite").path
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let migrated = try await GatewayBinary.run(["migrate", "--database", path])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let demo = try GatewayApplication(configuration: Self.configuration(path, demo: true))
        try await demo.seedDemoIfRequested()
        #expect(try await demo.accounts.accountCount() > 0)

        let other = dir.appendingPathComponent("with-an-account.sqlite").path
        let second = try await GatewayBinary.run(["migrate", "--database", other])
        #expect(second.status == 0)
        let real = try GatewayApplication(configuration: Self.configuration(other, demo: false))
        _ = try await real.accounts.createAccount(username: "registrar", email: nil, password: "a long admin passphrase", role: .admin)
        #expect(throws: StartupRefusal.self) { _ = try GatewayApplication(configuration: Self.configuration(other, demo: true)) }
    }

    @Test func documentedPasswordsAreOptIn() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = try GatewayApplication(configuration: Self.configuration(dir.appendingPathComponent("d.sqlite").path, demo: true, passwords: .documented))
        try await app.seedDemoIfRequested()
        let admin = try await app.accounts.verifyCredentials(username: "admin", password: "demo-admin-pass", clientAddress: nil)
        #expect(admin.role == .admin)
    }
}
