import Logging
public import Storage
public import SQLiteStorage
public import PostgresStorage

/// The backend a module's HTTP suite runs on: each test takes one as an argument and runs on
/// both (`@Test(arguments: TestBackend.all)`).
public enum TestBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgres

    public static let all = allCases
    public var description: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// A fresh database of this backend migrated with the given schema modules (each backend's
    /// own list: the drivers own the migrations), and how to throw it away.
    public func database(
        _ label: String, sqlite: [any SchemaModule.Type], postgres: [any PostgresSchemaModule.Type]
    ) async throws -> (transactions: any TransactionRunner, backend: OpenedBackend, cleanUp: @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            let (database, cleanUp) = try TestSQLite.database(label, modules: sqlite)
            return (database, .sqlite(database), cleanUp)
        case .postgres:
            let database = try await TestPostgres.database(label, modules: postgres)
            return (database, .postgres(database), { await database.shutdown() })
        }
    }

    /// The database a test opened, for the drivers' factories (`XStores.sqlite(...)`, `.postgres(...)`).
    public enum OpenedBackend: Sendable {
        case sqlite(GatewayDatabase)
        case postgres(GatewayPostgres)
    }
}

extension TestBackend.OpenedBackend {
    /// Connections of their own to this same database, as a second instance of the application
    /// would open them (its own pool, the same rows), and how to close them. The database is
    /// already migrated; on SQLite `sqlite` lists the schema modules the file was opened with.
    public func secondInstance(sqlite: [any SchemaModule.Type]) throws -> (transactions: any TransactionRunner, backend: Self, close: @Sendable () async -> Void) {
        switch self {
        case .sqlite(let database):
            let second = try GatewayDatabase(path: database.path, modules: sqlite)
            return (second, .sqlite(second), {})
        case .postgres(let database):
            var logger = Logger(label: "test-postgres-second")
            logger.logLevel = .critical
            let second = GatewayPostgres(settings: database.settings, connections: 3, logger: logger)
            second.start()
            return (second, .postgres(second), { await second.shutdown() })
        }
    }
}
