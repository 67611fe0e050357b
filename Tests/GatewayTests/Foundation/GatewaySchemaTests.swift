import PostgresStores
import Registration
import Jobs
import Catalog
import Auth
import Foundation
import GRDB
import GatewayApp
import SQLiteStores
import Storage
import Testing
import SQLiteStorage
import PostgresStorage
import ModuleKit

/// The gateway's whole schema (every module's migrations, as the composition root lists them).
/// The database's own behaviour is tested in StorageTests (`SQLiteDatabaseTests`,
/// `InlineTransactionTests`).
@Suite("Gateway schema and migrations")
struct GatewaySchemaTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)/nested/db.sqlite").path
    }

    @Test func emptyDatabaseMigratesAndReportsReady() throws {
        let db = try GatewayDatabase(path: Self.path(), modules: GatewayApplication.schemaModules)
        #expect(!db.isReady())
        #expect(try db.pendingMigrations().count > 0)
        try db.migrate()
        #expect(db.isReady())
        #expect(try db.pendingMigrations().isEmpty)
        try db.migrate()  // idempotent
        #expect(try db.integrityCheck() == ["ok"])
    }

    /// Every module's foreign keys hold on the gateway's schema (the connections' settings are
    /// `SQLiteDatabaseTests.connectionsUseWALForeignKeysAndTheSystemSQLite` in StorageTests).
    @Test func theGatewaySchemaEnforcesForeignKeys() throws {
        let db = try GatewayDatabase(path: Self.path(), modules: GatewayApplication.schemaModules)
        try db.migrate()
        #expect(throws: DatabaseError.self) {
            try db.pool.write { conn in
                try conn.execute(
                    sql: "INSERT INTO access_tokens (account_id, token_hash, created_at, expires_at) VALUES (999, x'00', 0, 0)"
                )
            }
        }
    }

    @Test func aDatabaseFromAnEarlierSchemaUpgradesInPlace() throws {
        // Apply only the first module's migrations (as an earlier release would have), write
        // data, then open with the full list: the rest apply and the data survives.
        let path = Self.path()
        let early = try GatewayDatabase(path: path, modules: [PreviousRelease.self])
        try early.migrate()
        try early.pool.write { conn in
            try conn.execute(
                sql: "INSERT INTO accounts (username, password_hash, role, created_at) VALUES ('kept', 'x', 'student', CURRENT_TIMESTAMP)"
            )
        }
        let current = try GatewayDatabase(path: path, modules: GatewayApplication.schemaModules)
        #expect(!current.isReady())
        try current.migrate()
        #expect(current.isReady())
        #expect(try current.pool.read { try String.fetchOne($0, sql: "SELECT username FROM accounts") } == "kept")
        #expect(try current.pendingMigrations().isEmpty)
    }

    /// The schema the release before the module split shipped: Auth's first migration, Jobs,
    /// and Registration's three (the catalog's tables among them), in their old order.
    enum PreviousRelease: SchemaModule {
        static let tables: [String] = []
        static var migrations: [Migration] {
            let catalog = CatalogSchema.migrations, registration = RegistrationSchema.migrations
            return [AuthSchema.migrations[0]] + JobsSchema.migrations + [catalog[0], registration[0], catalog[1]]
        }
    }

    @Test func migrationIdentifiersAreUniqueAndModulePrefixed() {
        let ids = GatewayApplication.schemaModules.flatMap { $0.migrations.map(\.identifier) }
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(id.split(separator: ".").count >= 3, "\(id) should read module.NNN.name") }
    }

    /// Each module hands over one schema type, and both drivers extend every one of them: the
    /// SQLite and PostgreSQL migrators see the same schemas in the same order, from one list.
    @Test func everyModulesSchemaHasMigrationsOnBothBackends() throws {
        let sqlite = try GatewayModules.schemas.onSQLite(), postgres = try GatewayModules.schemas.onPostgres()
        #expect(sqlite.map { "\($0)" } == postgres.map { "\($0)" })
        #expect(sqlite.map { "\($0)" } == ["StorageSchema"] + GatewayModules.kinds.compactMap { $0.schema }.map { "\($0)" })
        #expect(sqlite.count == 9, "Storage's and the eight feature modules'")
    }
}
