public import Logging
public import Storage

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
