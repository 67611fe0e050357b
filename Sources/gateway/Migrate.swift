import ArgumentParser
import GatewayApp
import Logging
import Storage

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or upgrade the database schema, then exit.")

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?

    func run() async throws {
        let storage = try GatewayStorage.open(try Env.databaseLocation(database), connections: 2, logger: Logger(label: "migrate"))
        let applied: [String]
        do {
            applied = try storage.migrate()
        } catch {
            await storage.shutdown()
            throw error
        }
        await storage.shutdown()
        print(applied.isEmpty ? "Database is up to date (\(storage))." : "Applied \(applied.count) migration(s) to \(storage): \(applied.joined(separator: ", "))")
    }
}
