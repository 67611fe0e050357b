import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// ``GradeAlertStoring`` on SQLite: `push_gradebook_preferences` and `push_account_poll_windows`.
struct SQLiteGradeAlertStore: GradeAlertStoring {
    init() {}

    func accountsWithActiveDevices(in transaction: any StoreTransaction) throws -> [Int64] {
        let db = try transaction.sqlite()
        return try Int64.fetchAll(db, sql: "SELECT DISTINCT account_id FROM push_devices WHERE active = 1 AND account_id IS NOT NULL ORDER BY account_id")
    }

    func preferences(of gradebookAccountIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: GradebookAlertPreference] {
        guard !gradebookAccountIDs.isEmpty else { return [:] }
        let db = try transaction.sqlite()
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT gradebook_account_id, enabled, muted FROM push_gradebook_preferences WHERE gradebook_account_id IN (\(databaseQuestionMarks(count: gradebookAccountIDs.count)))",
            arguments: StatementArguments(gradebookAccountIDs)
        )
        var result: [Int64: GradebookAlertPreference] = [:]
        for row in rows {
            let id: Int64 = row["gradebook_account_id"]
            let muted = (try? JSONDecoder().decode([String].self, from: Data((row["muted"] as String).utf8))) ?? []
            result[id] = GradebookAlertPreference(gradebookAccountID: id, enabled: row["enabled"], muted: Set(muted))
        }
        return result
    }

    func save(_ preference: GradebookAlertPreference, ownerAccountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let muted = String(decoding: try JSONEncoder().encode(preference.muted.sorted()), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO push_gradebook_preferences (gradebook_account_id, account_id, enabled, muted, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (gradebook_account_id) DO UPDATE SET
                    account_id = excluded.account_id, enabled = excluded.enabled, muted = excluded.muted, updated_at = excluded.updated_at
                """,
            arguments: [preference.gradebookAccountID, ownerAccountID, preference.enabled, muted, now]
        )
    }

    func claimPollWindow(gradebookAccountID: Int64, windowStart: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO push_account_poll_windows (gradebook_account_id, window_start) VALUES (?, ?)
                ON CONFLICT (gradebook_account_id) DO UPDATE SET window_start = excluded.window_start
                WHERE excluded.window_start > push_account_poll_windows.window_start
                """,
            arguments: [gradebookAccountID, windowStart]
        )
        return db.changesCount > 0
    }

    func forgetPollWindows(keeping gradebookAccountIDs: Set<Int64>, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let stored = try Int64.fetchAll(db, sql: "SELECT gradebook_account_id FROM push_account_poll_windows")
        for id in stored where !gradebookAccountIDs.contains(id) {
            try db.execute(sql: "DELETE FROM push_account_poll_windows WHERE gradebook_account_id = ?", arguments: [id])
        }
    }
}
