public import Storage
public import PostgresNIO

/// One schema change on PostgreSQL: statements run in order, in one transaction with the
/// record that it ran. Append-only, like SQLite's ``Migration``s: once released, never edited.
public struct PostgresMigration: Sendable {
    /// Globally unique and stable, for example `jobs.001.queue`.
    public let identifier: String
    public let statements: [String]

    public init(_ identifier: String, _ statements: [String]) {
        self.identifier = identifier
        self.statements = statements
    }
}

/// A module's tables on PostgreSQL: the same tables as its ``SchemaModule`` on SQLite, in
/// PostgreSQL's own types (`bigint` identities, `boolean`, `jsonb`, `timestamptz`).
public protocol PostgresSchemaModule: ModuleSchema {
    static var postgresMigrations: [PostgresMigration] { get }
}

extension GatewayPostgres {
    /// A fixed key for the migration lock (`pg_advisory_xact_lock`): any number, the same in
    /// every gateway instance.
    static let migrationLock = AdvisoryLocks.migrations

    /// Applies the modules' migrations that haven't run, in order, in one transaction.
    /// Instances starting together take turns through an advisory lock, so each migration runs
    /// once. Returns the identifiers applied.
    @discardableResult
    public func migrate(_ modules: [any PostgresSchemaModule.Type]) async throws -> [String] {
        try await transaction(.lockStep) { transaction in try Self.apply(modules, on: transaction) }
    }

    /// ``migrate(_:)`` on a connection of its own, blocking the caller: for start-up.
    @discardableResult
    public func migrateAtStartup(_ modules: [any PostgresSchemaModule.Type]) throws -> [String] {
        try atStartup(.lockStep) { transaction in try Self.apply(modules, on: transaction) }
    }

    /// Whether no migration has ever run on the database: a new one.
    public func isNewAtStartup() throws -> Bool {
        try atStartup(.read) { transaction in
            let exists = try transaction.query("SELECT to_regclass('gateway_migrations') IS NOT NULL").first?.decode(Bool.self) ?? false
            guard exists else { return true }
            return try transaction.query("SELECT NOT EXISTS (SELECT 1 FROM gateway_migrations)").first?.decode(Bool.self) ?? true
        }
    }

    static func apply(_ modules: [any PostgresSchemaModule.Type], on transaction: PostgresTransaction) throws -> [String] {
        try transaction.execute("SELECT pg_advisory_xact_lock(\(migrationLock))")
        try transaction.execute(
            "CREATE TABLE IF NOT EXISTS gateway_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        var done = Set<String>()
        for row in try transaction.query("SELECT identifier FROM gateway_migrations") {
            done.insert(try row.decode(String.self))
        }
        var applied: [String] = []
        for migration in modules.flatMap({ $0.postgresMigrations }) where !done.contains(migration.identifier) {
            for statement in migration.statements {
                try transaction.execute(PostgresQuery(unsafeSQL: statement))
            }
            try transaction.execute("INSERT INTO gateway_migrations (identifier) VALUES (\(migration.identifier))")
            applied.append(migration.identifier)
        }
        return applied
    }

    /// The migrations not yet applied, for `gateway migrate --check`.
    public func pendingMigrations(_ modules: [any PostgresSchemaModule.Type]) async throws -> [String] {
        let done = try await transaction(.read) { transaction in
            let exists = try transaction.query("SELECT to_regclass('gateway_migrations') IS NOT NULL").first?.decode(Bool.self) ?? false
            guard exists else { return Set<String>() }
            return Set(try transaction.query("SELECT identifier FROM gateway_migrations").map { try $0.decode(String.self) })
        }
        return modules.flatMap { $0.postgresMigrations.map(\.identifier) }.filter { !done.contains($0) }
    }
}

extension GatewayPostgres {
    /// The server's version (`SHOW server_version`), read at start-up for the log.
    public func serverVersion() throws -> String {
        try atStartup(.read) { transaction in try transaction.query("SHOW server_version").first?.decode(String.self) ?? "?" }
    }

    /// The deep readiness check: every table of `modules` exists and a row of it can be read.
    /// "ok", or the problems found. (PostgreSQL checks its own pages; this finds a schema that
    /// was dropped or altered under the gateway.)
    public func checkTables(_ modules: [any PostgresSchemaModule.Type]) async throws -> [String] {
        let tables = modules.flatMap { $0.tables }
        let problems = try await transaction(.read) { transaction in
            try tables.compactMap { table -> String? in
                let exists = try transaction.query("SELECT to_regclass(\(table)) IS NOT NULL").first?.decode(Bool.self) ?? false
                guard exists else { return "table \(table) is missing" }
                try transaction.query(PostgresQuery(unsafeSQL: "SELECT 1 FROM \"\(table)\" LIMIT 1"))
                return nil
            }
        }
        return problems.isEmpty ? ["ok"] : problems
    }
}
