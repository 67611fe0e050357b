import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// ``GradeAlertStoring`` on PostgreSQL: `push_gradebook_preferences` and
/// `push_account_poll_windows`, as ``SQLiteGradeAlertStore`` keeps them.
struct PostgresGradeAlertStore: GradeAlertStoring {
    init() {}

    func accountsWithActiveDevices(in transaction: any StoreTransaction) throws -> [Int64] {
        try transaction.postgres().query(
            "SELECT DISTINCT account_id FROM push_devices WHERE active AND account_id IS NOT NULL ORDER BY account_id"
        ).map { try $0.decode(Int64.self) }
    }

    func preferences(of gradebookAccountIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: GradebookAlertPreference] {
        guard !gradebookAccountIDs.isEmpty else { return [:] }
        var result: [Int64: GradebookAlertPreference] = [:]
        for row in try transaction.postgres().query("""
            SELECT gradebook_account_id, enabled, muted FROM push_gradebook_preferences WHERE gradebook_account_id = ANY(\(gradebookAccountIDs))
            """) {
            let (id, enabled, muted) = try row.decode((Int64, Bool, String).self)
            result[id] = GradebookAlertPreference(gradebookAccountID: id, enabled: enabled, muted: Set(PostgresDeviceStore.strings(muted)))
        }
        return result
    }

    func save(_ preference: GradebookAlertPreference, ownerAccountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let muted = try PostgresDeviceStore.json(preference.muted)
        try transaction.postgres().execute("""
            INSERT INTO push_gradebook_preferences (gradebook_account_id, account_id, enabled, muted, updated_at)
            VALUES (\(preference.gradebookAccountID), \(ownerAccountID), \(preference.enabled), \(muted), \(now))
            ON CONFLICT (gradebook_account_id) DO UPDATE SET
                account_id = excluded.account_id, enabled = excluded.enabled, muted = excluded.muted, updated_at = excluded.updated_at
            """)
    }

    /// Moves the account's window forward only; true when this call claimed `windowStart`.
    func claimPollWindow(gradebookAccountID: Int64, windowStart: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            INSERT INTO push_account_poll_windows (gradebook_account_id, window_start) VALUES (\(gradebookAccountID), \(windowStart))
            ON CONFLICT (gradebook_account_id) DO UPDATE SET window_start = excluded.window_start
            WHERE excluded.window_start > push_account_poll_windows.window_start
            """) > 0
    }

    func forgetPollWindows(keeping gradebookAccountIDs: Set<Int64>, in transaction: any StoreTransaction) throws {
        let keeping = Array(gradebookAccountIDs)
        try transaction.postgres().execute(
            "DELETE FROM push_account_poll_windows WHERE NOT (gradebook_account_id = ANY(\(keeping)))"
        )
    }
}
