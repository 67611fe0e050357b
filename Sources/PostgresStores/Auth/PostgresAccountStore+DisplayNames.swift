public import Auth
public import Contracts
import PostgresNIO
import PostgresStorage

/// The names students show others (`auth_display_names`), on PostgreSQL.
extension PostgresAccountStore {
    public func displayNames(of ids: [Int64], in transaction: any StoreTransaction) throws -> [Int64: DisplayNames] {
        guard !ids.isEmpty else { return [:] }
        var names: [Int64: DisplayNames] = [:]
        for row in try transaction.postgres().query(
            "SELECT account_id, chosen, from_profile FROM auth_display_names WHERE account_id = ANY(\(ids))"
        ) {
            let (id, chosen, fromProfile) = try row.decode((Int64, String?, String?).self)
            names[id] = DisplayNames(chosen: chosen, fromProfile: fromProfile)
        }
        return names
    }

    public func setChosenDisplayName(_ name: String?, accountID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO auth_display_names (account_id, chosen) VALUES (\(accountID), \(name))
            ON CONFLICT (account_id) DO UPDATE SET chosen = excluded.chosen
            """)
    }

    public func setProfileDisplayName(_ name: String?, accountID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO auth_display_names (account_id, from_profile) VALUES (\(accountID), \(name))
            ON CONFLICT (account_id) DO UPDATE SET from_profile = excluded.from_profile
            """)
    }
}
