public import Storage
public import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

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
    ///
    /// The copy holds password and token hashes, server secrets, grades and personal data: it
    /// is created readable and writable by its owner only (0600) whatever the umask, and
    /// neither `destination` nor `<destination>.partial` may be a symbolic link (a link planted
    /// there would otherwise send the copy, or its mode, wherever it points).
    public static func copy(from source: String, to destination: String) async throws -> Int {
        guard FileManager.default.fileExists(atPath: source) else { throw Failure(description: "\(source) does not exist") }
        guard !isSymbolicLink(destination) else { throw Failure(description: "\(destination) is a symbolic link; choose a new file") }
        guard !FileManager.default.fileExists(atPath: destination) else { throw Failure(description: "\(destination) exists; choose a new file") }
        let partial = destination + ".partial"
        guard !isSymbolicLink(partial) else { throw Failure(description: "\(partial) is a symbolic link; remove it first, nothing was written") }
        try? FileManager.default.removeItem(atPath: partial)
        try createPrivateFile(partial)
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

    /// Whether `path` itself is a symbolic link (`lstat`: a link is not followed).
    static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    /// Creates `path` as a new, empty file of mode 0600: exclusively (it must not exist) and
    /// without following a link, so SQLite then writes into this file and no other. SQLite
    /// gives the file's journal the file's own mode.
    static func createPrivateFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "could not create \(path): \(String(cString: strerror(errno))); nothing was written")
        }
        defer { close(descriptor) }
        // The umask may have taken bits away, never added them; set the mode exactly.
        guard fchmod(descriptor, 0o600) == 0 else {
            throw Failure(description: "could not make \(path) private: \(String(cString: strerror(errno)))")
        }
    }
}
