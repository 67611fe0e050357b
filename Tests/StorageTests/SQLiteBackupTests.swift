import Foundation
import GRDB
import Storage
import Testing
import SQLiteStorage

/// `gateway backup`'s copy is private to its owner and never follows a planted link.
@Suite("SQLite backup files")
struct SQLiteBackupFileTests {
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backup-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func source(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("live.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE secrets (value TEXT); INSERT INTO secrets VALUES ('password hash')")
        }
        try queue.close()
        return path
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// Before, the copy took the umask's mode (0644 under the usual 022): anyone on the host
    /// could read every password hash and secret in it.
    @Test func theCopyIsReadableByItsOwnerOnly() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(in: directory)
        let destination = directory.appendingPathComponent("backup.sqlite").path
        _ = try await SQLiteBackup.copy(from: source, to: destination)
        #expect(try Self.mode(destination) == 0o600)
        let copy = try DatabaseQueue(path: destination)
        let value = try await copy.read { db in try String.fetchOne(db, sql: "SELECT value FROM secrets") }
        #expect(value == "password hash")
    }

    /// A link planted at the partial file's or the backup's name is refused, and what it points
    /// to is left untouched.
    @Test func aSymbolicLinkAtEitherNameIsRefused() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.source(in: directory)
        let target = directory.appendingPathComponent("elsewhere.txt")
        try Data("keep me".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)

        let destination = directory.appendingPathComponent("backup.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: destination + ".partial", withDestinationPath: target.path)
        await #expect(throws: SQLiteBackup.Failure.self) { _ = try await SQLiteBackup.copy(from: source, to: destination) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "keep me")
        #expect(try Self.mode(target.path) == 0o644)
        #expect(!FileManager.default.fileExists(atPath: destination))

        let linked = directory.appendingPathComponent("linked.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: directory.appendingPathComponent("missing").path)
        await #expect(throws: SQLiteBackup.Failure.self) { _ = try await SQLiteBackup.copy(from: source, to: linked) }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing").path), "a dangling link is not followed")
    }
}
