import Foundation
import GRDB
import Storage
import Synchronization
import TestSupport
import Testing
import SQLiteStorage

/// The SQLite database on its own (Storage, no feature module): migrations, the WAL log kept
/// short off the writer's path, and how every connection is configured.
@Suite("SQLite database and migrations")
struct SQLiteDatabaseTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("storage-\(UUID().uuidString)/nested/db.sqlite").path
    }

    /// A module of this test's own: its first release had one migration, the next adds a second.
    enum Notes: SchemaModule {
        static let tables = ["notes", "tags"]
        static let first = Migration("notes.001.notes") { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        static let second = Migration("notes.002.tags") { db in
            try db.execute(sql: "CREATE TABLE tags (note_id INTEGER NOT NULL REFERENCES notes (id), tag TEXT NOT NULL)")
        }
        static var migrations: [Migration] { [first, second] }
    }

    enum NotesFirstRelease: SchemaModule {
        static let tables = ["notes"]
        static var migrations: [Migration] { [Notes.first] }
    }

    @Test func emptyDatabaseMigratesAndReportsReady() throws {
        let db = try GatewayDatabase(path: Self.path(), modules: [StorageSchema.self, Notes.self])
        #expect(!db.isReady())
        #expect(try db.pendingMigrations() == ["storage.001.marks", "notes.001.notes", "notes.002.tags"])
        try db.migrate()
        #expect(db.isReady())
        #expect(try db.pendingMigrations().isEmpty)
        try db.migrate()  // idempotent
        #expect(try db.integrityCheck() == ["ok"])
    }

    @Test func aDatabaseFromAnEarlierSchemaUpgradesInPlace() throws {
        // Apply only the first release's migrations, write data, then open with the full list:
        // the rest apply and the data survives.
        let path = Self.path()
        let early = try GatewayDatabase(path: path, modules: [NotesFirstRelease.self])
        try early.migrate()
        try early.pool.write { conn in try conn.execute(sql: "INSERT INTO notes (body) VALUES ('kept')") }
        let current = try GatewayDatabase(path: path, modules: [Notes.self])
        #expect(!current.isReady())
        #expect(try current.pendingMigrations() == ["notes.002.tags"])
        try current.migrate()
        #expect(current.isReady())
        #expect(try current.pool.read { try String.fetchOne($0, sql: "SELECT body FROM notes") } == "kept")
        #expect(try current.pendingMigrations().isEmpty)
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
    /// the log but the log never starts over; the checkpointer's `RESTART` rounds make it start
    /// over. Rows of 8 KiB are written back to back, with a reader that never stops, until the
    /// log has started over three times (the count in the log's header, which goes up each
    /// time the writer starts the log over), or 12,000 writes (about 150 MiB of log) without.
    /// Whenever the checkpointer's thread gets the CPU, the log is never longer than the 16 MiB
    /// past which a round restarts it plus what was written in the gaps between rounds: the
    /// writer counts its writes between the rounds it sees end, so the bound follows the rounds,
    /// not the wall clock. The file (which only grows while the log does, and is not trimmed
    /// below 64 MiB) shows the longest the log got.
    @Test func aSteadyStreamOfWritesAndReadsKeepsTheLogShort() async throws {
        let db = try GatewayDatabase(path: Self.path(), modules: [])
        // Up to 200 MB of log when the rounds don't restart it: removed however the test ends.
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: db.path).deletingLastPathComponent().deletingLastPathComponent()) }
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
        let log = db.path + "-wal"
        let firstSequence = try Self.logSequence(log)
        var writes = 0, restarts = 0, gap = 0, longestGap = 0
        var rounds = db.checkpointRounds
        while restarts < 3, writes < 12_000 {
            try await db.pool.write { conn in try conn.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: [blob]) }
            writes += 1
            let now = db.checkpointRounds
            if now != rounds {
                (rounds, gap) = (now, 0)
            } else {
                gap += 1
                longestGap = max(longestGap, gap)
            }
            restarts = Int(try Self.logSequence(log) &- firstSequence)
        }
        writing.store(false, ordering: .relaxed)
        #expect(try await reader.value > 0)
        #expect(restarts >= 3, "the log started over \(restarts) times in \(writes) writes")
        // A round restarts a log past 16 MiB; one just under it waits for the next round, and a
        // round that meets a reader at the wrong moment for the one after: three gaps' writes
        // beyond it, each write at most 5 pages (4 KiB and a frame header each).
        let size = try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? 0
        let bound = (16 << 20) + 3 * (longestGap + 1) * 5 * (4096 + 24) + (1 << 20)
        #expect(size <= bound, "the log reached \(size) bytes (bound \(bound)); at most \(longestGap) writes came between two checkpointer rounds")
        #expect(try await db.pool.read { conn in try Int.fetchOne(conn, sql: "SELECT COUNT(*) FROM notes") } == writes)
    }

    /// The checkpoint sequence number in a log's header (bytes 12–15, big-endian): raised each
    /// time a writer starts the log over from its beginning.
    static func logSequence(_ path: String) throws -> UInt32 {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let header = Array(try handle.read(upToCount: 16) ?? Data())
        guard header.count == 16 else { return 0 }
        return header[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test func connectionsUseWALForeignKeysAndTheSystemSQLite() throws {
        let db = try GatewayDatabase(path: Self.path(), modules: [Notes.self])
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
            try db.pool.write { conn in try conn.execute(sql: "INSERT INTO tags (note_id, tag) VALUES (999, 'dangling')") }
        }
    }
}
