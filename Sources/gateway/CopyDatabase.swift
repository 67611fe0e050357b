import ArgumentParser
import Foundation
import GatewayApp
import Logging
import PostgresStores
import SQLiteStores
import Storage

/// `gateway copy-database --from <file> --to <postgres url>`: moves a SQLite deployment onto
/// PostgreSQL (docs/operations.md). Both are migrated first; the copy is one transaction.
struct CopyDatabase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-database",
        abstract: "Copy a SQLite database into an empty PostgreSQL database (stop the SQLite server first)."
    )

    @Option(help: "The SQLite file to copy from.") var from: String
    @Option(help: "The PostgreSQL database to copy into: a postgres:// URL (its password as for --database).") var to: String

    func run() async throws {
        guard case .sqlite(let path) = try DatabaseLocation.parse(from) else { throw GatewayCLIError("--from must be a SQLite file") }
        guard FileManager.default.fileExists(atPath: path) else { throw GatewayCLIError("--from: \(path) does not exist") }
        guard case .postgres = try DatabaseLocation.parse(to) else { throw GatewayCLIError("--to must be a postgres:// URL") }
        let logger = Logger(label: "copy-database")
        let source = try GatewayStorage.open(.sqlite(path: path), logger: logger)
        let destination = try GatewayStorage.open(try DatabaseLocation.parse(to), connections: 2, logger: logger)
        defer { Task { await destination.shutdown() } }
        guard case .sqlite(let sqlite) = source, case .postgres(let postgres) = destination else { return }
        try source.migrate()
        try destination.migrate()
        let tables = GatewayStorage.sqliteModules.flatMap { $0.tables }
        let copied: [(table: String, rows: Int)]
        do {
            copied = try SQLiteToPostgresCopy(source: sqlite, destination: postgres).copy(tables: tables)
        } catch let refusal as CopyRefusal {
            throw GatewayCLIError("nothing was copied: \(refusal)")
        }
        let total = copied.reduce(0) { $0 + $1.rows }
        print("Copied \(total) rows in \(copied.count) tables from \(path) to \(destination).")
        for (table, rows) in copied where rows > 0 { print("  \(table): \(rows)") }
    }
}
