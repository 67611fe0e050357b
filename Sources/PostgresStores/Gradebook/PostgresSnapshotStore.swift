import Contracts
import Foundation
import Gradebook
import PostgresNIO
import Storage
import PostgresStorage

/// ``SnapshotStoring`` on PostgreSQL: the last gradebook seen per device student and per
/// student account, as JSON text (what grade alerts diff against).
struct PostgresSnapshotStore: SnapshotStoring {
    init() {}

    static func decode(_ text: String?) -> GradebookSnapshot? {
        text.flatMap { try? JSONDecoder().decode(GradebookSnapshot.self, from: Data($0.utf8)) }
    }

    func snapshot(deviceAccountID: Int64, student: String, in transaction: any StoreTransaction) throws -> GradebookSnapshot? {
        Self.decode(try transaction.postgres().query("""
            SELECT snapshot FROM gradebook_snapshots WHERE device_account_id = \(deviceAccountID) AND student = \(student)
            """).first?.decode(String.self))
    }

    func save(_ snapshot: GradebookSnapshot, deviceAccountID: Int64, student: String, at now: Date, in transaction: any StoreTransaction) throws {
        let encoded = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        try transaction.postgres().execute("""
            INSERT INTO gradebook_snapshots (device_account_id, student, snapshot, digest, polled_at)
            VALUES (\(deviceAccountID), \(student), \(encoded), \(snapshot.digest), \(now))
            ON CONFLICT (device_account_id, student) DO UPDATE SET snapshot = excluded.snapshot, digest = excluded.digest, polled_at = excluded.polled_at
            """)
    }

    func snapshot(gradebookAccountID: Int64, in transaction: any StoreTransaction) throws -> GradebookSnapshot? {
        Self.decode(try transaction.postgres().query(
            "SELECT snapshot FROM gradebook_account_snapshots WHERE gradebook_account_id = \(gradebookAccountID)"
        ).first?.decode(String.self))
    }

    func save(_ snapshot: GradebookSnapshot, gradebookAccountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let encoded = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        try transaction.postgres().execute("""
            INSERT INTO gradebook_account_snapshots (gradebook_account_id, snapshot, digest, polled_at)
            VALUES (\(gradebookAccountID), \(encoded), \(snapshot.digest), \(now))
            ON CONFLICT (gradebook_account_id) DO UPDATE SET snapshot = excluded.snapshot, digest = excluded.digest, polled_at = excluded.polled_at
            """)
    }

    func prune(polledBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let transaction = try transaction.postgres()
        return try transaction.execute("DELETE FROM gradebook_snapshots WHERE polled_at < \(cutoff)")
            + transaction.execute("DELETE FROM gradebook_account_snapshots WHERE polled_at < \(cutoff)")
    }
}
