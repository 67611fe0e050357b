public import Foundation
import GRDB

/// A consistent, checked copy of a live SQLite database (`gateway backup`), taken with SQLite's
/// online backup API while the server keeps serving.
///
/// The copy reads one snapshot (in WAL mode the server's writer is not blocked), is written to
/// `<destination>.partial`, passes `PRAGMA integrity_check`, and only then is renamed to
/// `destination`: a file there is always a whole, checked backup. An existing file is never
/// overwritten.
public enum SQLiteBackup {
    /// Why no backup was written.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Copies the database at `source` to the new file `destination`; returns its page count.
    public static func copy(from source: String, to destination: String) async throws -> Int {
        guard FileManager.default.fileExists(atPath: source) else { throw Failure(description: "\(source) does not exist") }
        guard !FileManager.default.fileExists(atPath: destination) else { throw Failure(description: "\(destination) exists; choose a new file") }
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let pages: Int
        let integrity: String
        do {
            let live = try DatabasePool(path: source, configuration: configuration)
            let copy = try DatabaseQueue(path: partial)
            try live.backup(to: copy)
            (pages, integrity) = try await copy.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer")
            }
            try copy.close()
            try live.close()
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw Failure(description: "the copy failed, nothing was written to \(destination): \(error)")
        }
        guard integrity == "ok" else {
            try? FileManager.default.removeItem(atPath: partial)
            throw Failure(description: "the copy failed its integrity check (\(integrity)); nothing was written to \(destination)")
        }
        try FileManager.default.moveItem(atPath: partial, toPath: destination)
        return pages
    }
}
