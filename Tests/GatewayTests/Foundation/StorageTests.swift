import Registration
import Jobs
import Catalog
import Auth
import Contracts
import TestSupport
import Foundation
import GRDB
import GatewayApp
import Storage
import Synchronization
import Testing

@Suite("Storage and migrations")
struct StorageTests {
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

    /// No commit checkpoints the log (so no write waits for a disk flush); the checkpointer's
    /// thread does, so the log is reused from its start instead of growing with every write:
    /// 3,000 writes of 4 KiB would leave a log of more than 12 MiB if nothing copied it back.
    @Test func theLogIsCheckpointedOffTheWritersPath() async throws {
        let db = try GatewayDatabase(path: Self.path(), modules: [])
        #expect(try await db.pool.write { conn in try Int.fetchOne(conn, sql: "PRAGMA wal_autocheckpoint") } == 0)
        try await db.pool.write { conn in try conn.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        let blob = Data(repeating: 7, count: 4096)
        for round in 0..<30 {
            for _ in 0..<100 {
                try await db.pool.write { conn in try conn.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: [blob]) }
            }
            // Room for the checkpointer's rounds to come between the bursts: two whole rounds
            // (on a loaded machine its thread may get the CPU later than every 100 ms).
            if round % 5 == 4 {
                let before = db.checkpointRounds
                try #require(await eventually(seconds: 30) { db.checkpointRounds >= before + 2 })
            }
        }
        let log = try FileManager.default.attributesOfItem(atPath: db.path + "-wal")[.size] as? Int ?? 0
        #expect(log < 8 << 20, "the log is \(log) bytes")
        #expect(try await db.pool.read { conn in try Int.fetchOne(conn, sql: "SELECT COUNT(*) FROM notes") } == 3000)
    }

    /// Under writes that never pause and readers that never stop, a passive checkpoint copies
    /// the log but the log never starts over; the checkpointer's `RESTART` rounds keep it near
    /// 16 MiB. 6,000 writes of 8 KiB write more than 48 MiB of log; the file (which only grows
    /// while the log does, and is not trimmed below 64 MiB) shows the longest the log got.
    @Test func aSteadyStreamOfWritesAndReadsKeepsTheLogShort() async throws {
        let db = try GatewayDatabase(path: Self.path(), modules: [])
        try await db.pool.write { conn in try conn.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        let blob = Data(repeating: 7, count: 8192)
        let writing = Atomic<Bool>(true)
        let pool = db.pool
        let reader = Task.detached {
            var reads = 0
            while writing.load(ordering: .relaxed) {
                _ = try await pool.read { conn in try Int.fetchOne(conn, sql: "SELECT COUNT(*) FROM notes") }
                reads += 1
            }
            return reads
        }
        for _ in 0..<6000 {
            try await db.pool.write { conn in try conn.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: [blob]) }
        }
        writing.store(false, ordering: .relaxed)
        #expect(try await reader.value > 0)
        let log = try FileManager.default.attributesOfItem(atPath: db.path + "-wal")[.size] as? Int ?? 0
        #expect(log < 40 << 20, "the log reached \(log) bytes")
        #expect(try await db.pool.read { conn in try Int.fetchOne(conn, sql: "SELECT COUNT(*) FROM notes") } == 6000)
    }

    @Test func connectionsUseWALForeignKeysAndTheSystemSQLite() throws {
        let db = try GatewayDatabase(path: Self.path(), modules: GatewayApplication.schemaModules)
        try db.migrate()
        let (journal, foreignKeys, synchronous, busy) = try db.pool.read { conn in
            (
                try String.fetchOne(conn, sql: "PRAGMA journal_mode"), try Int.fetchOne(conn, sql: "PRAGMA foreign_keys"),
                try Int.fetchOne(conn, sql: "PRAGMA synchronous"), try Int.fetchOne(conn, sql: "PRAGMA busy_timeout")
            )
        }
        #expect(journal == "wal")
        #expect(foreignKeys == 1)
        #expect(synchronous == 1)  // NORMAL
        #expect((busy ?? 0) >= 5000)  // GRDB sets at least the configured 5 s
        #expect(try db.sqliteVersion().hasPrefix("3."))
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
}
