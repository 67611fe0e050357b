import Foundation
import GatewayApp
import GatewayCore
import GRDB
import Logging
import Gradebook
import Storage
import Testing
import TestSupport
import SQLiteStorage

/// Issue 20, Low 6: with the vault's key file gone, the server used to make a new key silently
/// and answer 503 for every stored account. Now it refuses to start, naming the way out, and
/// `gateway vault forget-unreadable --yes` deletes the unreadable accounts on purpose.
@Suite("A lost vault key", .serialized)
struct VaultStartupTests {
    @Test func theServerRefusesToStartUntilTheUnreadableAreForgotten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        var config = GatewayConfiguration()
        config.databasePath = database
        config.logLevel = .critical
        config.environment = [:]
        let first = try GatewayApplication(configuration: config)
        _ = try await first.gradebookSources.create(GradebookSource(id: 9, name: "Campus", baseURL: URL(string: "https://gradebook.example.edu/grades.json")!))
        let vault = first.vault
        try await first.database.pool.write { db in
            for username in ["jdoe", "asmith"] {
                try db.execute(
                    sql: "INSERT INTO gradebook_device_accounts (device_key, source_id, username, sealed_password, created_at, updated_at) VALUES ('k', 9, ?, '', ?, ?)",
                    arguments: [username, Date(), Date()]
                )
                let id = db.lastInsertedRowID
                let sealed = try vault.seal("secret-\(username)", context: DeviceAccountService.context(rowID: id))
                try db.execute(sql: "UPDATE gradebook_device_accounts SET sealed_password = ? WHERE id = ?", arguments: [sealed, id])
            }
        }
        try await first.checkVault()

        try FileManager.default.removeItem(atPath: database + ".vault-keys")
        let second = try GatewayApplication(configuration: config)
        do {
            try await second.checkVault()
            Issue.record("a server whose key can't open the stored accounts must not start")
        } catch let refusal as StartupRefusal {
            #expect(refusal.description.contains("2 of 2 stored credentials"), "\(refusal)")
            #expect(refusal.description.contains("gateway vault forget-unreadable"))
            #expect(!refusal.description.contains("secret-"))
        }

        let counted = try await GatewayBinary.run(["vault", "forget-unreadable", "--database", database])
        #expect(counted.status == 0, "\(counted.stderr)")
        #expect(counted.stdout.contains("2 of 2"))
        #expect(try await Self.accounts(second) == 2, "without --yes nothing is deleted")
        let forgotten = try await GatewayBinary.run(["vault", "forget-unreadable", "--database", database, "--yes"])
        #expect(forgotten.status == 0, "\(forgotten.stderr)")
        #expect(forgotten.stdout.contains("Deleted 2"))
        #expect(try await Self.accounts(second) == 0)
        try await GatewayApplication(configuration: config).checkVault()
    }

    static func accounts(_ app: GatewayApplication) async throws -> Int {
        try await app.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM gradebook_device_accounts") ?? -1 }
    }
}
