public import Foundation
public import GRDB
public import GatewayCore

/// SQL for accounts and tokens. Functions take a `Database` so callers compose them inside
/// their own transactions (for example, Registration creates an account and a student
/// profile atomically).
public enum AccountStore {
    /// Inserts an account; a taken username or email is ``AuthError/accountExists(field:)``.
    public static func insert(_ account: Account, in db: Database) throws -> Account {
        var account = account
        do {
            try account.insert(db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let field = (error.message ?? "").contains("email") ? "email" : "username"
            throw AuthError.accountExists(field: field)
        }
        return account
    }

    /// The database's server key (`auth.002`), for HMACs of usernames in the throttle and logs.
    public static func serverKey(in db: Database) throws -> Data {
        guard let key = try Data.fetchOne(db, sql: "SELECT value FROM auth_secrets WHERE name = 'server-key'") else {
            throw AuthError.missingServerKey
        }
        return key
    }

    public static func count(in db: Database) throws -> Int {
        try Account.fetchCount(db)
    }

    public static func find(username: String, in db: Database) throws -> Account? {
        try Account.filter(Column("username") == username).fetchOne(db)
    }

    public static func find(email: String, in db: Database) throws -> Account? {
        try Account.filter(Column("email") == email).fetchOne(db)
    }

    public static func find(id: Int64, in db: Database) throws -> Account? {
        try Account.fetchOne(db, key: id)
    }

    public static func updatePasswordHash(accountID: Int64, hash: String, in db: Database) throws {
        try db.execute(sql: "UPDATE accounts SET password_hash = ? WHERE id = ?", arguments: [hash, accountID])
    }

    /// Changes the username; a taken one is ``AuthError/accountExists(field:)``.
    public static func rename(accountID: Int64, to username: String, in db: Database) throws {
        do {
            try db.execute(sql: "UPDATE accounts SET username = ? WHERE id = ?", arguments: [username, accountID])
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw AuthError.accountExists(field: "username")
        }
    }

    /// Those of `ids` whose accounts exist and are enabled.
    public static func enabledAccounts(among ids: [Int64], in db: Database) throws -> Set<Int64> {
        var enabled = Set<Int64>()
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let rows = try Int64.fetchAll(db, sql: "SELECT id FROM accounts WHERE disabled = 0 AND id IN (\(marks))", arguments: StatementArguments(chunk))
            enabled.formUnion(rows)
        }
        return enabled
    }

    public static func setStatus(accountID: Int64, disabled: Bool, role: Role, in db: Database) throws {
        try db.execute(sql: "UPDATE accounts SET disabled = ?, role = ? WHERE id = ?", arguments: [disabled, role.rawValue, accountID])
    }

    /// Revokes every live token of an account except `keeping`. Returns how many.
    @discardableResult
    public static func revokeTokens(accountID: Int64, keeping: Int64?, now: Date, in db: Database) throws -> Int {
        try db.execute(
            sql: "UPDATE access_tokens SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL AND id IS NOT ?",
            arguments: [now, accountID, keeping]
        )
        return db.changesCount
    }

    public static func list(after id: Int64, limit: Int, in db: Database) throws -> [Account] {
        try Account.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db)
    }

    static func insertToken(_ token: AccessToken, in db: Database) throws -> AccessToken {
        var token = token
        try token.insert(db)
        return token
    }

    /// The live token with this hash and its account, if any.
    static func liveToken(hash: Data, now: Date, in db: Database) throws -> (AccessToken, Account)? {
        guard
            let token = try AccessToken
                .filter(Column("token_hash") == hash && Column("revoked_at") == nil && Column("expires_at") > now)
                .fetchOne(db),
            let account = try Account.fetchOne(db, key: token.accountID), !account.disabled
        else { return nil }
        return (token, account)
    }

    static func revokeToken(id: Int64, now: Date, in db: Database) throws {
        try db.execute(sql: "UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [now, id])
    }

    /// Revokes an account's live tokens other than its `keep` newest.
    static func revokeTokensBeyond(_ keep: Int, accountID: Int64, now: Date, in db: Database) throws {
        try db.execute(
            sql: """
                UPDATE access_tokens SET revoked_at = ?1
                WHERE account_id = ?2 AND revoked_at IS NULL AND expires_at > ?1 AND id NOT IN (
                    SELECT id FROM access_tokens WHERE account_id = ?2 AND revoked_at IS NULL AND expires_at > ?1
                    ORDER BY id DESC LIMIT ?3)
                """,
            arguments: [now, accountID, keep]
        )
    }

    /// Deletes tokens that expired or were revoked before `cutoff`. Returns how many.
    public static func pruneTokens(before cutoff: Date, in db: Database) throws -> Int {
        try db.execute(
            sql: "DELETE FROM access_tokens WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)",
            arguments: [cutoff, cutoff]
        )
        return db.changesCount
    }
}
