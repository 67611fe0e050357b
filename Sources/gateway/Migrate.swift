import ArgumentParser
import GatewayApp
import Storage

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or upgrade the database schema, then exit.")

    @Option(help: "SQLite database file (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?

    func run() async throws {
        let path = try Env.sqliteDatabasePath(database)
        let db = try GatewayDatabase(path: path, modules: GatewayApplication.schemaModules)
        let pending = try db.pendingMigrations()
        try db.migrate()
        print(pending.isEmpty ? "Database is up to date (\(path))." : "Applied \(pending.count) migration(s) to \(path): \(pending.joined(separator: ", "))")
    }
}
