import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// Students' notification preferences on PostgreSQL (`push_preferences`; no row means the
/// defaults), as ``SQLitePreferenceStore`` keeps them: muted categories as a JSON array.
struct PostgresPreferenceStore: PreferenceStoring {
    init() {}

    func preferences(accountID: Int64, in transaction: any StoreTransaction) throws -> NotificationPreferences {
        guard let row = try transaction.postgres().query(
            "SELECT muted, quiet_start, quiet_end, time_zone, max_per_hour FROM push_preferences WHERE account_id = \(accountID)"
        ).first else { return .default }
        let (muted, start, end, zoneID, maxPerHour) = try row.decode((String, Int?, Int?, String?, Int).self)
        var quiet: QuietHours?
        if let start, let end, let zoneID, let zone = TimeZone(identifier: zoneID) {
            quiet = QuietHours(start: start, end: end, timeZone: zone)
        }
        return NotificationPreferences(muted: Set(PostgresDeviceStore.strings(muted)), quietHours: quiet, maxPerHour: maxPerHour)
    }

    func save(_ preferences: NotificationPreferences, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let muted = try PostgresDeviceStore.json(preferences.muted)
        let quiet = preferences.quietHours
        try transaction.postgres().execute("""
            INSERT INTO push_preferences (account_id, muted, quiet_start, quiet_end, time_zone, max_per_hour, updated_at)
            VALUES (\(accountID), \(muted), \(quiet?.start), \(quiet?.end), \(quiet?.timeZone.identifier), \(preferences.maxPerHour), \(now))
            ON CONFLICT (account_id) DO UPDATE SET muted = excluded.muted, quiet_start = excluded.quiet_start,
                quiet_end = excluded.quiet_end, time_zone = excluded.time_zone, max_per_hour = excluded.max_per_hour,
                updated_at = excluded.updated_at
            """)
    }
}
