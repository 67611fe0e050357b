public import Storage
import Foundation
public import GRDB
import Synchronization

/// The service's one SQLite database: a GRDB `DatabasePool` in WAL mode with foreign keys on,
/// a busy timeout, and `synchronous=NORMAL`; the log is checkpointed off the writer's path by
/// a ``WALCheckpointer``.
public final class GatewayDatabase: Sendable {
    public let pool: DatabasePool
    public let path: String
    let migrator: DatabaseMigrator
    /// Write transactions running or queued: while there is one, ``writePreferringInline(_:)``
    /// queues instead of running on its caller's thread.
    let writesInFlight = Atomic<Int>(0)
    /// Connections of their own for ``readPreferringInline(_:)``.
    let inlineReaders: InlineReaders
    /// Copies the log into the database file on a thread of its own (no commit does it).
    let checkpointer: WALCheckpointer

    /// Opens (creating the file and its folder when missing) and configures the database.
    /// It does not migrate: call ``migrate()``.
    public init(path: String, modules: [any SchemaModule.Type], readers: Int = 8) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true
        )
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(5)
        config.maximumReaderCount = readers
        config.journalMode = .wal
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Checkpoints run on the checkpointer's thread, not inside a commit.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "PRAGMA journal_size_limit = \(64 << 20)")
        }
        self.path = path
        self.pool = try DatabasePool(path: path, configuration: config)
        self.inlineReaders = try InlineReaders(path: path, count: max(2, ProcessInfo.processInfo.activeProcessorCount))
        self.migrator = makeMigrator(modules)
        self.checkpointer = try WALCheckpointer(path: path)
        checkpointer.start(interval: .milliseconds(100))
    }

    deinit {
        checkpointer.stop()
    }

    /// How many rounds the checkpointing thread has run (for tests that wait for one).
    public var checkpointRounds: Int { checkpointer.rounds.load(ordering: .acquiring) }

    /// How many write transactions are running or queued for the writer right now (for tests
    /// that wait until a write has queued, and for diagnostics).
    public var writesQueuedOrRunning: Int { writesInFlight.load(ordering: .acquiring) }

    /// A write transaction on GRDB's writer queue, counted so that
    /// ``writePreferringInline(_:)`` knows whether the writer is free. Stores that work on GRDB
    /// directly write through this rather than `pool.write`.
    public func writeSQLite<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        writesInFlight.add(1, ordering: .acquiring)
        defer { writesInFlight.subtract(1, ordering: .releasing) }
        return try await pool.write(updates)
    }

    /// Applies every migration not yet applied.
    public func migrate() throws {
        try migrator.migrate(pool)
    }

    /// The migrations known to the code but not applied to the file.
    public func pendingMigrations() throws -> [String] {
        try pool.read { db in
            let applied = try migrator.appliedIdentifiers(db)
            return migrator.migrations.filter { !applied.contains($0) }
        }
    }

    /// Whether the database answers, every migration has been applied, and it can take writes
    /// (``hasRoomToWrite(minimumFreeBytes:)``): a full disk fails every write while reads go on.
    public func isReady() -> Bool {
        hasRoomToWrite() && ((try? pool.read { db in try migrator.hasCompletedMigrations(db) }) ?? false)
    }

    /// Whether the file can be written and its filesystem is mounted read-write with at least
    /// `minimumFreeBytes` free to this process (root may use the blocks reserved for it). A
    /// filesystem that can't be asked counts as writable.
    public func hasRoomToWrite(minimumFreeBytes: UInt64 = 1 << 20) -> Bool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var stats = statvfs()
        guard statvfs(folder, &stats) == 0 else { return true }
        if stats.f_flag & UInt(ST_RDONLY) != 0 { return false }
        if access(path, W_OK) != 0 && errno != ENOENT { return false }
        let blocks = geteuid() == 0 ? UInt64(stats.f_bfree) : UInt64(stats.f_bavail)
        return blocks * UInt64(stats.f_frsize) >= minimumFreeBytes
    }

    /// `PRAGMA integrity_check`: "ok" or the list of problems SQLite found.
    public func integrityCheck() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The SQLite library version the process links.
    public func sqliteVersion() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "?" }
    }
}
