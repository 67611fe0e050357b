public import Storage
public import SQLiteStorage
public import PostgresStorage

/// One storage backend a store conformance suite runs on, made fresh for each test: its
/// transaction runner, the stores under test, and how to throw it away. A suite lists its
/// backends (SQLite and PostgreSQL) and runs every test on each, as River's driver suite does.
public struct StoreBackend<Stores: Sendable>: CustomStringConvertible, Sendable {
    public let description: String
    let make: @Sendable () async throws -> (transactions: any TransactionRunner, stores: Stores, cleanUp: @Sendable () async -> Void)

    /// On a fresh SQLite file migrated with `modules`.
    public static func sqlite(
        _ label: String, modules: [any SchemaModule.Type], stores: @escaping @Sendable (GatewayDatabase) -> Stores
    ) -> StoreBackend {
        StoreBackend(description: "SQLite") {
            let (database, cleanUp) = try TestSQLite.database(label, modules: modules)
            return (database, stores(database), cleanUp)
        }
    }

    /// On a fresh database of the process's throwaway PostgreSQL cluster, migrated with `modules`.
    public static func postgres(
        _ label: String, modules: [any PostgresSchemaModule.Type], stores: @escaping @Sendable (GatewayPostgres) -> Stores
    ) -> StoreBackend {
        StoreBackend(description: "PostgreSQL") {
            let database = try await TestPostgres.database(label, modules: modules)
            return (database, stores(database), { await database.shutdown() })
        }
    }

    /// Runs `body` on a fresh backend, and throws the backend away after, whatever happens.
    public func with(_ body: (any TransactionRunner, Stores) async throws -> Void) async throws {
        let (transactions, stores, cleanUp) = try await make()
        do {
            try await body(transactions, stores)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }
}
