public import Auth
public import Contracts
import GRDB
import SQLiteStorage

/// The names students show others (`auth_display_names`), on SQLite.
extension SQLiteAccountStore {
    public func displayNames(of ids: [Int64], in transaction: any StoreTransaction) throws -> [Int64: DisplayNames] {
        guard !ids.isEmpty else { return [:] }
        let db = try transaction.sqlite()
        var names: [Int64: DisplayNames] = [:]
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            for row in try Row.fetchAll(
                db, sql: "SELECT account_id, chosen, from_profile FROM auth_display_names WHERE account_id IN (\(marks))",
                arguments: StatementArguments(chunk)
            ) {
                names[row["account_id"]] = DisplayNames(chosen: row["chosen"], fromProfile: row["from_profile"])
            }
        }
        return names
    }

    public func setChosenDisplayName(_ name: String?, accountID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: """
                INSERT INTO auth_display_names (account_id, chosen) VALUES (?, ?)
                ON CONFLICT (account_id) DO UPDATE SET chosen = excluded.chosen
                """,
            arguments: [accountID, name]
        )
    }

    public func setProfileDisplayName(_ name: String?, accountID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: """
                INSERT INTO auth_display_names (account_id, from_profile) VALUES (?, ?)
                ON CONFLICT (account_id) DO UPDATE SET from_profile = excluded.from_profile
                """,
            arguments: [accountID, name]
        )
    }
}
