import Auth
import Catalog
public import Foundation
import GRDB
import Gradebook
import Jobs
public import Logging
import PostgresStores
import Push
import Registration
import SQLiteStores
import Scheduling
public import Storage
public import SQLiteStorage
public import PostgresStorage

/// The database the gateway runs on, chosen by `--database`: one SQLite file (the embedded
/// default), or a PostgreSQL database that many gateway instances share. Everything that
/// differs between the two at the level of the whole application (opening, migrating, marks,
/// readiness, the stores, shutting down) is answered here, so the composition root and the
/// commands don't branch on the backend.
public enum GatewayStorage: Sendable, CustomStringConvertible {
    case sqlite(GatewayDatabase)
    case postgres(GatewayPostgres)

    /// The modules' schemas with their SQLite migrations, in dependency order
    /// (``GatewayModules/schemas``; the SQLite driver extends each).
    public static var sqliteModules: [any SchemaModule.Type] {
        do { return try GatewayModules.schemas.onSQLite() } catch { preconditionFailure("\(error)") }
    }

    /// The same schemas with their PostgreSQL migrations, in the same order.
    public static var postgresModules: [any PostgresSchemaModule.Type] {
        do { return try GatewayModules.schemas.onPostgres() } catch { preconditionFailure("\(error)") }
    }

    /// Opens (nothing is migrated) the database at `location`. On PostgreSQL the pool holds up
    /// to `connections` connections and starts at once.
    public static func open(_ location: DatabaseLocation, connections: Int = 16, logger: Logger) throws -> GatewayStorage {
        switch location {
        case .sqlite(let path):
            return .sqlite(try GatewayDatabase(path: path, modules: sqliteModules))
        case .postgres(let settings):
            let database = GatewayPostgres(settings: settings, connections: connections, logger: logger)
            database.start()
            return .postgres(database)
        }
    }

    /// The units of work every service runs through.
    public var transactions: any TransactionRunner {
        switch self {
        case .sqlite(let database): database
        case .postgres(let database): database
        }
    }

    /// The file's path, or the PostgreSQL URL without its password: safe to log and print.
    public var description: String {
        switch self {
        case .sqlite(let database): database.path
        case .postgres(let database): database.settings.description
        }
    }

    /// The engine and its version, for the start-up log.
    public func engineVersion() -> String {
        switch self {
        case .sqlite(let database):
            return "SQLite \((try? database.sqliteVersion()) ?? "?")"
        case .postgres(let database):
            return "PostgreSQL \((try? database.serverVersion()) ?? "?")"
        }
    }

    /// Whether no migration has ever run: a new, empty database.
    public func isNew() throws -> Bool {
        switch self {
        case .sqlite(let database): try database.isNew()
        case .postgres(let database): try database.isNewAtStartup()
        }
    }

    /// The migrations known to this build and not yet applied.
    public func pendingMigrations() async throws -> [String] {
        switch self {
        case .sqlite(let database): try database.pendingMigrations()
        case .postgres(let database): try await database.pendingMigrations(Self.postgresModules)
        }
    }

    /// Applies every migration not yet applied (blocking: start-up and commands). Instances
    /// starting together on one PostgreSQL database take turns, and each migration runs once.
    @discardableResult
    public func migrate() throws -> [String] {
        switch self {
        case .sqlite(let database):
            let pending = try database.pendingMigrations()
            try database.migrate()
            return pending
        case .postgres(let database):
            return try database.migrateAtStartup(Self.postgresModules)
        }
    }

    /// Whether the database carries `mark` (``DatabaseMarks``); blocking, for start-up.
    func isMarked(_ mark: String) throws -> Bool {
        switch self {
        case .sqlite(let database): try database.pool.read { db in try db.isMarked(mark) }
        case .postgres(let database): try database.readAtStartup { try $0.postgres().isMarked(mark) }
        }
    }

    /// The tables whose rows are people's data: a database with none of them holds no user
    /// data, whatever its schema, terms or catalog (`gateway migrate` made it, or an import).
    static let userDataTables = [
        "accounts", "registration_students", "registration_enrollments", "scheduling_saved_schedules", "push_devices", "gradebook_accounts",
    ]

    /// Whether the database holds user data (``userDataTables``); blocking, for start-up.
    func holdsUserData() throws -> Bool {
        switch self {
        case .sqlite(let database): try database.pool.read { db in try db.holdsRows(in: Self.userDataTables) }
        case .postgres(let database): try database.readAtStartup { try $0.postgres().holdsRows(in: Self.userDataTables) }
        }
    }

    /// Marks the database (``DatabaseMarks``); blocking, for start-up.
    func mark(_ mark: String) throws {
        switch self {
        case .sqlite(let database): try database.pool.write { db in try db.mark(mark) }
        case .postgres(let database): try database.atStartup(.lockStep) { try $0.postgres().mark(mark) }
        }
    }

    /// Every module's stores on this backend; Push's device keys are sealed by `vault`.
    func stores(vault: VaultKeyProvider) -> GatewayStores {
        switch self {
        case .sqlite(let database): .sqlite(database: database, vault: vault)
        case .postgres(let database): .postgres(database: database, vault: vault)
        }
    }

    /// Where the vault's keys come from: `GATEWAY_VAULT_KEY`, else the key file. On SQLite
    /// the file defaults to `<database>.vault-keys`; on PostgreSQL every instance must read the
    /// same keys, so there is no default beside a file that doesn't exist, and one of the two
    /// must be given (see docs/operations.md).
    func vaultKeySource(environment: [String: String], keyFile: String?) throws -> VaultKeySource {
        switch self {
        case .sqlite(let database):
            return try VaultKeySource.resolve(environment: environment, databasePath: database.path, keyFilePath: keyFile)
        case .postgres:
            guard environment["GATEWAY_VAULT_KEY"] != nil || keyFile != nil else {
                throw StartupRefusal(
                    "On PostgreSQL every instance must seal and open with the same vault keys: set GATEWAY_VAULT_KEY, or --vault-key-file "
                        + "(GATEWAY_VAULT_KEY_FILE) to a key file all instances read."
                )
            }
            return try VaultKeySource.resolve(environment: environment, databasePath: "", keyFilePath: keyFile)
        }
    }

    /// Whether the database answers and every migration has been applied.
    public func isReady() async -> Bool {
        switch self {
        case .sqlite(let database):
            return database.isReady()
        case .postgres(let database):
            return ((try? await database.pendingMigrations(Self.postgresModules)) ?? ["unreachable"]).isEmpty
        }
    }

    /// The deep check: "ok", or the problems found. SQLite runs `PRAGMA integrity_check`;
    /// PostgreSQL (which checks its pages itself) reads a row of every table of every module.
    public func integrityCheck() async throws -> [String] {
        switch self {
        case .sqlite(let database):
            return try database.integrityCheck()
        case .postgres(let database):
            return try await database.checkTables(Self.postgresModules)
        }
    }

    /// Runs `body` while no other instance on this database runs a body under the same `lock`
    /// (PostgreSQL: a session advisory lock). One SQLite file is served by one process.
    func exclusively<T: Sendable>(_ lock: Int64, _ body: () async throws -> T) async throws -> T {
        switch self {
        case .sqlite: try await body()
        case .postgres(let database): try await database.exclusively(lock, body)
        }
    }

    /// Closes the PostgreSQL connections (SQLite closes with the process).
    public func shutdown() async {
        if case .postgres(let database) = self { await database.shutdown() }
    }
}
