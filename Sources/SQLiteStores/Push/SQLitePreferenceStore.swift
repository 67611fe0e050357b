import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// Students' notification preferences on SQLite (`push_preferences`; no row means the
/// defaults).
struct SQLitePreferenceStore: PreferenceStoring {
    init() {}

    func preferences(accountID: Int64, in transaction: any StoreTransaction) throws -> NotificationPreferences {
        let db = try transaction.sqlite()
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT muted, quiet_start, quiet_end, time_zone, max_per_hour FROM push_preferences WHERE account_id = ?"),
            arguments: [accountID]
        ) else { return .default }
        let mutedText: String = row["muted"]
        let muted = (try? JSONDecoder().decode([String].self, from: Data(mutedText.utf8))) ?? []
        var quiet: QuietHours?
        if let start: Int = row["quiet_start"], let end: Int = row["quiet_end"], let zoneID: String = row["time_zone"], let zone = TimeZone(identifier: zoneID) {
            quiet = QuietHours(start: start, end: end, timeZone: zone)
        }
        return NotificationPreferences(muted: Set(muted), quietHours: quiet, maxPerHour: row["max_per_hour"])
    }

    func save(_ preferences: NotificationPreferences, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        let muted = String(decoding: try JSONEncoder().encode(preferences.muted.sorted()), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT INTO push_preferences (account_id, muted, quiet_start, quiet_end, time_zone, max_per_hour, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET muted = excluded.muted, quiet_start = excluded.quiet_start,
                    quiet_end = excluded.quiet_end, time_zone = excluded.time_zone, max_per_hour = excluded.max_per_hour,
                    updated_at = excluded.updated_at
                """,
            arguments: [
                accountID, muted, preferences.quietHours?.start, preferences.quietHours?.end, preferences.quietHours?.timeZone.identifier,
                preferences.maxPerHour, now,
            ]
        )
    }
}
