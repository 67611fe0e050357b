import Contracts
import Foundation
import GRDB
import Gradebook
import Storage
import SQLiteStorage

/// The last snapshot of each polled (device account, student), on SQLite.
struct SQLiteSnapshotStore: SnapshotStoring {
    init() {}

    /// The stored snapshot, if any (an unreadable one counts as none).
    func snapshot(deviceAccountID: Int64, student: String, in transaction: any StoreTransaction) throws -> GradebookSnapshot? {
        let db = try transaction.sqlite()
        return try String.fetchOne(
            db, sql: "SELECT snapshot FROM gradebook_snapshots WHERE device_account_id = ? AND student = ?", arguments: [deviceAccountID, student]
        ).flatMap { try? JSONDecoder().decode(GradebookSnapshot.self, from: Data($0.utf8)) }
    }

    func save(_ snapshot: GradebookSnapshot, deviceAccountID: Int64, student: String, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let encoded = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO gradebook_snapshots (device_account_id, student, snapshot, digest, polled_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (device_account_id, student) DO UPDATE SET snapshot = excluded.snapshot, digest = excluded.digest, polled_at = excluded.polled_at
                """,
            arguments: [deviceAccountID, student, encoded, snapshot.digest, now]
        )
    }

    /// The stored snapshot of a student's own account (`gradebook.poll-account`), if any.
    func snapshot(gradebookAccountID: Int64, in transaction: any StoreTransaction) throws -> GradebookSnapshot? {
        let db = try transaction.sqlite()
        return try String.fetchOne(
            db, sql: "SELECT snapshot FROM gradebook_account_snapshots WHERE gradebook_account_id = ?", arguments: [gradebookAccountID]
        ).flatMap { try? JSONDecoder().decode(GradebookSnapshot.self, from: Data($0.utf8)) }
    }

    func save(_ snapshot: GradebookSnapshot, gradebookAccountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let encoded = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO gradebook_account_snapshots (gradebook_account_id, snapshot, digest, polled_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (gradebook_account_id) DO UPDATE SET snapshot = excluded.snapshot, digest = excluded.digest, polled_at = excluded.polled_at
                """,
            arguments: [gradebookAccountID, encoded, snapshot.digest, now]
        )
    }

    /// Deletes snapshots (of device accounts' students and of students' own accounts) last
    /// polled before `cutoff`: nobody polls them any more. How many.
    func prune(polledBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_snapshots WHERE polled_at < ?", arguments: [cutoff])
        var deleted = db.changesCount
        try db.execute(sql: "DELETE FROM gradebook_account_snapshots WHERE polled_at < ?", arguments: [cutoff])
        deleted += db.changesCount
        return deleted
    }
}
