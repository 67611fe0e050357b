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
public protocol PostgresSchemaModule: Sendable {
    static var tables: [String] { get }
    static var postgresMigrations: [PostgresMigration] { get }
}

extension GatewayPostgres {
    /// A fixed key for the migration lock (`pg_advisory_xact_lock`): any number, the same in
    /// every gateway instance.
    static let migrationLock: Int64 = 0x6761_7465_7761_7901

    /// Applies the modules' migrations that haven't run, in order, each in its own
    /// transaction. Instances starting together take turns through an advisory lock, so each
    /// migration runs once. Returns the identifiers applied.
    @discardableResult
    public func migrate(_ modules: [any PostgresSchemaModule.Type]) async throws -> [String] {
        let migrations = modules.flatMap { $0.postgresMigrations }
        return try await transaction(.lockStep) { transaction in
            try transaction.execute("SELECT pg_advisory_xact_lock(\(Self.migrationLock))")
            try transaction.execute(
                "CREATE TABLE IF NOT EXISTS gateway_migrations (identifier text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            var done = Set<String>()
            for row in try transaction.query("SELECT identifier FROM gateway_migrations") {
                done.insert(try row.decode(String.self))
            }
            var applied: [String] = []
            for migration in migrations where !done.contains(migration.identifier) {
                for statement in migration.statements {
                    try transaction.execute(PostgresQuery(unsafeSQL: statement))
                }
                try transaction.execute("INSERT INTO gateway_migrations (identifier) VALUES (\(migration.identifier))")
                applied.append(migration.identifier)
            }
            return applied
        }
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
