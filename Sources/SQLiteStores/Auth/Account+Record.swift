public import Auth
public import GRDB
import GatewayCore

/// How accounts and tokens are stored in SQLite (GRDB records over `accounts` and
/// `access_tokens`); the values themselves are plain models.
extension Account: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "accounts"

    /// Read by column name without `Decodable` (every credential and token check reads one
    /// account, and the decoder cost as much as the query).
    public init(row: Row) throws {
        guard let role = Role(rawValue: row["role"]) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "accounts.role holds an unknown role")
        }
        self.init(username: row["username"], email: row["email"], passwordHash: row["password_hash"], role: role, createdAt: row["created_at"])
        id = row["id"]
        disabled = row["disabled"]
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension AccessToken: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "access_tokens"

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
