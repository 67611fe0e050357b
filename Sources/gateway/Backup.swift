import ArgumentParser
import Foundation
import GRDB
import Storage

/// `gateway backup --database <file> --to <file>`: a consistent copy of a live SQLite database,
/// taken with SQLite's online backup API while the server keeps serving (docs/operations.md).
///
/// The copy reads one snapshot (WAL readers don't block the server's writer), is written to
/// `<to>.partial`, checked with `PRAGMA integrity_check`, and only then renamed to `<to>`: a
/// file at `<to>` is always a whole, checked backup. PostgreSQL has its own tools (`pg_dump`).
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a live SQLite database to a new file, consistent and checked, while it serves."
    )

    @Option(help: "The SQLite database to back up (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "The backup file to write; it must not exist yet.") var to: String

    func run() async throws {
        let location = try Env.databaseLocation(database)
        guard case .sqlite(let path) = location else {
            throw GatewayCLIError("backup copies SQLite databases; for PostgreSQL use pg_dump or pg_basebackup (docs/operations.md)")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw GatewayCLIError("--database: \(path) does not exist") }
        guard !FileManager.default.fileExists(atPath: to) else { throw GatewayCLIError("--to: \(to) exists; choose a new file") }
        let partial = to + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        var sourceConfiguration = Configuration()
        sourceConfiguration.busyMode = .timeout(30)
        let source = try DatabasePool(path: path, configuration: sourceConfiguration)
        let pages: Int
        let integrity: String
        do {
            let copy = try DatabaseQueue(path: partial)
            try source.backup(to: copy)
            (pages, integrity) = try await copy.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer")
            }
            try copy.close()
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw GatewayCLIError("backup failed, nothing written to \(to): \(error)")
        }
        guard integrity == "ok" else {
            try? FileManager.default.removeItem(atPath: partial)
            throw GatewayCLIError("the copy failed its integrity check (\(integrity)); nothing written to \(to)")
        }
        try FileManager.default.moveItem(atPath: partial, toPath: to)
        print("Backed up \(path) to \(to): \(pages) pages, integrity ok.")
    }
}
