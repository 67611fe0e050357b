import Foundation
import GRDB
import GatewayCore

/// SQL for accounts and tokens. Functions take a `Database` so callers compose them inside
/// their own transactions (for example, Registration creates an account and a student
/// profile atomically).
public enum AccountStore {
    /// Inserts an account; a taken username or email is a 409 problem.
    public static func insert(_ account: Account, in db: Database) throws -> Account {
        var account = account
        do {
            try account.insert(db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let field = (error.message ?? "").contains("email") ? "email" : "username"
            throw Problem.conflict(
                "account-exists", title: "Account already exists",
                detail: "An account with this \(field) already exists."
            )
        }
        return account
    }

    public static func find(username: String, in db: Database) throws -> Account? {
        try Account.filter(Column("username") == username).fetchOne(db)
    }

    public static func find(id: Int64, in db: Database) throws -> Account? {
        try Account.fetchOne(db, key: id)
    }

    public static func updatePasswordHash(accountID: Int64, hash: String, in db: Database) throws {
        try db.execute(sql: "UPDATE accounts SET password_hash = ? WHERE id = ?", arguments: [hash, accountID])
    }

    public static func rename(accountID: Int64, to username: String, in db: Database) throws {
        try db.execute(sql: "UPDATE accounts SET username = ? WHERE id = ?", arguments: [username, accountID])
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

    /// Deletes tokens that expired or were revoked before `cutoff`. Returns how many.
    public static func pruneTokens(before cutoff: Date, in db: Database) throws -> Int {
        try db.execute(
            sql: "DELETE FROM access_tokens WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)",
            arguments: [cutoff, cutoff]
        )
        return db.changesCount
    }
}
