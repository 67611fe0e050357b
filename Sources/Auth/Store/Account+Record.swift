public import GRDB

/// How accounts and tokens are stored in SQLite (GRDB records over `accounts` and
/// `access_tokens`); the values themselves are plain models.
extension Account: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "accounts"

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension AccessToken: FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "access_tokens"

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
