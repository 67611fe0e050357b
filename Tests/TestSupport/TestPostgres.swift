public import Logging
import Foundation
public import Storage
public import SQLiteStorage
public import PostgresStorage

/// A fresh database on the process's throwaway cluster (``PostgresCluster``), migrated with
/// `modules` and connected: what a test's PostgreSQL backend starts from.
public enum TestPostgres {
    public static func database(_ label: String, modules: [any PostgresSchemaModule.Type], connections: Int = 6) async throws -> GatewayPostgres {
        let url = try await PostgresCluster.start().database(label)
        guard case .postgres(let settings) = try DatabaseLocation.parse(url) else { throw PostgresClusterError(message: "not a PostgreSQL URL: \(url)") }
        var logger = Logger(label: "test-postgres")
        logger.logLevel = .critical
        let database = GatewayPostgres(settings: settings, connections: connections, logger: logger)
        database.start()
        do {
            try await database.migrate(modules)
        } catch {
            await database.shutdown()
            throw error
        }
        return database
    }
}

/// A fresh SQLite file in a folder of its own, migrated with `modules`: what a test's SQLite
/// backend starts from, and how to throw it away.
public enum TestSQLite {
    public static func database(_ label: String, modules: [any SchemaModule.Type]) throws -> (database: GatewayDatabase, cleanUp: @Sendable () async -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        let database = try GatewayDatabase(path: directory.appendingPathComponent("gateway.sqlite").path, modules: modules)
        try database.migrate()
        return (database, { try? FileManager.default.removeItem(at: directory) })
    }
}
