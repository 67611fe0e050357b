import ArgumentParser
import PostgresStores
import SQLiteStores
import Storage
import SQLiteStorage

/// `gateway backup --database <file> --to <file>`: a consistent, checked copy of a live SQLite
/// database while it serves (``SQLiteBackup``, docs/operations.md). PostgreSQL has its own
/// tools (`pg_dump`, `pg_basebackup`).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a live SQLite database to a new file, consistent and checked, while it serves."
    )

    @Option(help: "The SQLite database to back up (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "The backup file to write; it must not exist yet.") var to: String

    func run() async throws {
        guard case .sqlite(let path) = try Env.databaseLocation(database) else {
            throw GatewayCLIError("backup copies SQLite databases; for PostgreSQL use pg_dump or pg_basebackup (docs/operations.md)")
        }
        do {
            let pages = try await SQLiteBackup.copy(from: path, to: to)
            print("Backed up \(path) to \(to): \(pages) pages, integrity ok. Keep the vault key file apart from it.")
        } catch let failure as SQLiteBackup.Failure {
            throw GatewayCLIError("backup: \(failure)")
        }
    }
}
