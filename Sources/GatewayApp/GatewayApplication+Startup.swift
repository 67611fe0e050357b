import Foundation
import Auth
import HTTPClient
public import Gradebook
import Push
import Storage

/// What the application checks and prepares before it serves: the vault's sealed values, the
/// demo mark, and the demo's data.
extension GatewayApplication {
    /// Demo data only in a database made for it: `--demo` marks a new database; a marked one
    /// refuses to serve without `--demo` (its accounts' passwords were published or printed),
    /// and an unmarked one (real data) refuses `--demo` (which would add those accounts to it).
    static func checkDemoMark(storage: GatewayStorage, demo: Bool, isNew: Bool) throws {
        let marked = try storage.isMarked(DatabaseMarks.demo)
        switch (demo, marked) {
        case (true, false) where isNew:
            try storage.mark(DatabaseMarks.demo)
        case (true, false):
            throw StartupRefusal(
                "--demo needs a new database, and \(storage) already holds data: demo accounts with known passwords would be added to it. Use another --database."
            )
        case (false, true):
            throw StartupRefusal(
                "\(storage) is a demo database (its accounts' passwords were published); serve it only with --demo, or use another --database."
            )
        default:
            break
        }
    }

    /// Seeds the demo data when asked to and the database holds no accounts yet.
    public func seedDemoIfRequested() async throws {
        guard configuration.demo else { return }
        // Instances started together on one PostgreSQL database seed in turn: the first seeds,
        // the others find the data there and leave it.
        try await storage.exclusively(DemoSeed.lock) { try await DemoSeed(app: self).run() }
    }

    /// Refuses to serve while stored credentials are sealed under keys this server doesn't have
    /// (``VaultAudit``): they would all answer 503, and new ones would be sealed beside them.
    public func checkVault() async throws {
        let report = try await VaultAudit().audit(rows: modules.vaultRows, ring: modules.vault.ring)
        guard !report.unreadable.isEmpty else { return }
        let keys = report.unknownKeyIDs.isEmpty ? "" : " (sealed under key \(report.unknownKeyIDs.joined(separator: ", ")))"
        throw StartupRefusal(
            "\(report.unreadable.count) of \(report.checked) stored credentials can't be opened with the vault's keys\(keys): "
                + "the key file (\(modules.vault.source)) or GATEWAY_VAULT_KEY is not the one they were sealed with. Restore it, or run "
                + "`gateway vault forget-unreadable --database \(storage) --yes` to delete those stored accounts."
        )
    }

    /// Refuses to serve when campus sign-in is configured but its provider's discovery document
    /// or keys can't be read: every sign-in would fail. The message names the setting.
    public func checkCampusSignIn() async throws {
        guard let campus = modules.auth.campus, let problem = await campus.provider.problem() else { return }
        throw StartupRefusal(problem)
    }

    /// The client that reaches the campus provider: the operator names it, so a loopback
    /// issuer (development, tests) may be reached; other restricted addresses are refused as for
    /// every outbound request.
    static func providerClient(for settings: CampusSignInSettings) -> CurlHTTPClient {
        let loopback = settings.issuer.scheme == "http"
        return CurlHTTPClient(configuration: .init(threadCount: 2, allowedDestinations: loopback ? .loopback : .none))
    }
}
