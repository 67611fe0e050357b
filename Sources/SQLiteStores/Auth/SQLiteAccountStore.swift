public import Auth
public import Contracts
public import Foundation
import GRDB
public import GatewayCore
import Storage
import SQLiteStorage

/// ``AccountStoring`` on SQLite: SQL for accounts and tokens, each method inside the caller's
/// transaction (Registration, for example, creates an account and a student profile atomically).
public struct SQLiteAccountStore: AccountStoring {
    public init() {}

    /// Inserts an account; a taken username or email is ``AuthError/accountExists(field:)``.
    public func insert(_ account: Account, in transaction: any StoreTransaction) throws -> Account {
        let db = try transaction.sqlite()
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
    public func serverKey(in transaction: any StoreTransaction) throws -> Data {
        let db = try transaction.sqlite()
        guard let key = try Data.fetchOne(db, sql: "SELECT value FROM auth_secrets WHERE name = 'server-key'") else {
            throw AuthError.missingServerKey
        }
        return key
    }

    public func count(in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Account.fetchCount(db)
    }

    public func find(username: String, in transaction: any StoreTransaction) throws -> Account? {
        let db = try transaction.sqlite()
        return try Account.fetchOne(db.cachedStatement(sql: "SELECT * FROM accounts WHERE username = ?"), arguments: [username])
    }

    public func find(email: String, in transaction: any StoreTransaction) throws -> Account? {
        let db = try transaction.sqlite()
        return try Account.filter(Column("email") == email).fetchOne(db)
    }

    public func find(id: Int64, in transaction: any StoreTransaction) throws -> Account? {
        let db = try transaction.sqlite()
        // A cached statement: this runs on every credential check (the query interface builds,
        // authorizes and prepares its SQL anew each time, most of the cost of a lookup).
        return try Account.fetchOne(db.cachedStatement(sql: "SELECT * FROM accounts WHERE id = ?"), arguments: [id])
    }

    public func updatePasswordHash(accountID: Int64, hash: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE accounts SET password_hash = ? WHERE id = ?", arguments: [hash, accountID])
    }

    /// Changes the username; a taken one is ``AuthError/accountExists(field:)``.
    public func rename(accountID: Int64, to username: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        do {
            try db.execute(sql: "UPDATE accounts SET username = ? WHERE id = ?", arguments: [username, accountID])
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw AuthError.accountExists(field: "username")
        }
    }

    /// Those of `ids` whose accounts exist and are enabled.
    public func enabledAccounts(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64> {
        let db = try transaction.sqlite()
        var enabled = Set<Int64>()
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let rows = try Int64.fetchAll(db, sql: "SELECT id FROM accounts WHERE disabled = 0 AND id IN (\(marks))", arguments: StatementArguments(chunk))
            enabled.formUnion(rows)
        }
        return enabled
    }

    public func setStatus(accountID: Int64, disabled: Bool, role: Role, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE accounts SET disabled = ?, role = ? WHERE id = ?", arguments: [disabled, role.rawValue, accountID])
    }

    /// Revokes every live token of an account except `keeping`. Returns how many.
    @discardableResult
    public func revokeTokens(accountID: Int64, keeping: Int64?, now: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "UPDATE access_tokens SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL AND id IS NOT ?",
            arguments: [now, accountID, keeping]
        )
        return db.changesCount
    }

    public func list(after id: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Account] {
        let db = try transaction.sqlite()
        return try Account.filter(Column("id") > id).order(Column("id")).limit(limit).fetchAll(db)
    }

    public func insertToken(_ token: AccessToken, in transaction: any StoreTransaction) throws -> AccessToken {
        let db = try transaction.sqlite()
        var token = token
        try token.insert(db)
        return token
    }

    /// The live token with this hash and its account, if any.
    public func liveToken(hash: Data, now: Date, in transaction: any StoreTransaction) throws -> (AccessToken, Account)? {
        let db = try transaction.sqlite()
        guard
            let token = try AccessToken.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM access_tokens WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?"),
                arguments: [hash, now]
            ),
            let account = try find(id: token.accountID, in: db), !account.disabled
        else { return nil }
        return (token, account)
    }

    public func revokeToken(id: Int64, now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [now, id])
    }

    /// Revokes an account's live tokens other than its `keep` newest.
    public func revokeTokensBeyond(_ keep: Int, accountID: Int64, now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
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
    public func pruneTokens(before cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "DELETE FROM access_tokens WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)",
            arguments: [cutoff, cutoff]
        )
        return db.changesCount
    }
}
