public import Auth
public import Contracts
public import Foundation
public import GatewayCore
import PostgresNIO
import Storage
import PostgresStorage

/// ``AccountStoring`` on PostgreSQL, in the caller's transaction. Unique violations become the
/// same ``AuthError/accountExists(field:)`` as on SQLite; the statement that raised one runs in
/// a savepoint, so the caller's transaction stays usable.
public struct PostgresAccountStore: AccountStoring {
    public init() {}

    static let accountColumns = "id, username, email, password_hash, role, created_at, disabled"

    static func account(_ row: PostgresRow) throws -> Account {
        let (id, username, email, hash, role, createdAt, disabled) = try row.decode((Int64, String, String?, String, String, Date, Bool).self)
        var account = Account(username: username, email: email, passwordHash: hash, role: Role(rawValue: role) ?? .student, createdAt: createdAt)
        account.id = id
        account.disabled = disabled
        return account
    }

    static func token(_ row: PostgresRow) throws -> AccessToken {
        let (id, accountID, hash, createdAt, expiresAt, revokedAt) = try row.decode((Int64, Int64, Data, Date, Date, Date?).self)
        return AccessToken(id: id, accountID: accountID, tokenHash: hash, createdAt: createdAt, expiresAt: expiresAt, revokedAt: revokedAt)
    }

    /// Runs `body` in a savepoint and turns a unique violation into ``AuthError/accountExists(field:)``.
    static func unique<T>(_ transaction: PostgresTransaction, _ body: () throws -> T) throws -> T {
        do {
            return try transaction.savepoint(body)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            let constraint = error.serverInfo?[.constraintName] ?? ""
            throw AuthError.accountExists(field: constraint.contains("email") ? "email" : "username")
        }
    }

    public func insert(_ account: Account, in transaction: any StoreTransaction) throws -> Account {
        let transaction = try transaction.postgres()
        let id = try Self.unique(transaction) {
            try transaction.query("""
                INSERT INTO accounts (username, email, password_hash, role, created_at, disabled)
                VALUES (\(account.username), \(account.email), \(account.passwordHash), \(account.role.rawValue), \(account.createdAt), \(account.disabled))
                RETURNING id
                """).first!.decode(Int64.self)
        }
        var inserted = account
        inserted.id = id
        return inserted
    }

    public func serverKey(in transaction: any StoreTransaction) throws -> Data {
        guard let key = try transaction.postgres().query("SELECT value FROM auth_secrets WHERE name = 'server-key'").first else {
            throw AuthError.missingServerKey
        }
        return try key.decode(Data.self)
    }

    public func count(in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM accounts").first?.decode(Int.self) ?? 0
    }

    public func find(username: String, in transaction: any StoreTransaction) throws -> Account? {
        try transaction.postgres().query("SELECT \(unescaped: Self.accountColumns) FROM accounts WHERE username = \(username)").first.map(Self.account)
    }

    public func find(email: String, in transaction: any StoreTransaction) throws -> Account? {
        try transaction.postgres().query("SELECT \(unescaped: Self.accountColumns) FROM accounts WHERE email = \(email)").first.map(Self.account)
    }

    public func find(id: Int64, in transaction: any StoreTransaction) throws -> Account? {
        try transaction.postgres().query("SELECT \(unescaped: Self.accountColumns) FROM accounts WHERE id = \(id)").first.map(Self.account)
    }

    public var findsInTask: Bool { true }

    public func findInTask(id: Int64, in transaction: any StoreTransaction) async throws -> Account? {
        try await transaction.postgres().rows(AccountByID(id: id)).first
    }

    /// The credential check's lookup, prepared once per connection.
    struct AccountByID: PostgresPreparedStatement {
        static let name = "auth_account_by_id_v1"
        static let sql = "SELECT \(accountColumns) FROM accounts WHERE id = $1::bigint"
        typealias Row = Account
        var id: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Account { try PostgresAccountStore.account(row) }
    }

    public func updatePasswordHash(accountID: Int64, hash: String, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE accounts SET password_hash = \(hash) WHERE id = \(accountID)")
    }

    public func rename(accountID: Int64, to username: String, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        try Self.unique(transaction) { try transaction.execute("UPDATE accounts SET username = \(username) WHERE id = \(accountID)") }
    }

    public func enabledAccounts(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return Set(try transaction.postgres().query("SELECT id FROM accounts WHERE NOT disabled AND id = ANY(\(ids))").map { try $0.decode(Int64.self) })
    }

    public func setStatus(accountID: Int64, disabled: Bool, role: Role, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE accounts SET disabled = \(disabled), role = \(role.rawValue) WHERE id = \(accountID)")
    }

    @discardableResult
    public func revokeTokens(accountID: Int64, keeping: Int64?, now: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("""
            UPDATE access_tokens SET revoked_at = \(now)
            WHERE account_id = \(accountID) AND revoked_at IS NULL AND id IS DISTINCT FROM \(keeping)
            """)
    }

    public func list(after id: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Account] {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.accountColumns) FROM accounts WHERE id > \(id) ORDER BY id LIMIT \(limit)
            """).map(Self.account)
    }

    public func insertToken(_ token: AccessToken, in transaction: any StoreTransaction) throws -> AccessToken {
        let id = try transaction.postgres().query("""
            INSERT INTO access_tokens (account_id, token_hash, created_at, expires_at, revoked_at)
            VALUES (\(token.accountID), \(token.tokenHash), \(token.createdAt), \(token.expiresAt), \(token.revokedAt))
            RETURNING id
            """).first!.decode(Int64.self)
        var inserted = token
        inserted.id = id
        return inserted
    }

    /// Positions in ``liveToken(hash:now:in:)``'s query: the token's columns, then the account's.
    enum LiveTokenColumn {
        static let id = 0, accountID = 1, tokenHash = 2, createdAt = 3, expiresAt = 4, revokedAt = 5
        static let account = 6, username = 7, email = 8, passwordHash = 9, role = 10, accountCreatedAt = 11, disabled = 12
    }

    public func liveToken(hash: Data, now: Date, in transaction: any StoreTransaction) throws -> (AccessToken, Account)? {
        guard let row = try transaction.postgres().query("""
            SELECT t.id, t.account_id, t.token_hash, t.created_at, t.expires_at, t.revoked_at,
                a.id, a.username, a.email, a.password_hash, a.role, a.created_at, a.disabled
            FROM access_tokens t JOIN accounts a ON a.id = t.account_id
            WHERE t.token_hash = \(hash) AND t.revoked_at IS NULL AND t.expires_at > \(now) AND NOT a.disabled
            """).first
        else { return nil }
        let cells = row.makeRandomAccess()
        typealias C = LiveTokenColumn
        let token = AccessToken(
            id: try cells[C.id].decode(Int64.self), accountID: try cells[C.accountID].decode(Int64.self),
            tokenHash: try cells[C.tokenHash].decode(Data.self), createdAt: try cells[C.createdAt].decode(Date.self),
            expiresAt: try cells[C.expiresAt].decode(Date.self), revokedAt: try cells[C.revokedAt].decode(Date?.self)
        )
        var account = Account(
            username: try cells[C.username].decode(String.self), email: try cells[C.email].decode(String?.self),
            passwordHash: try cells[C.passwordHash].decode(String.self),
            role: Role(rawValue: try cells[C.role].decode(String.self)) ?? .student, createdAt: try cells[C.accountCreatedAt].decode(Date.self)
        )
        account.id = try cells[C.account].decode(Int64.self)
        account.disabled = try cells[C.disabled].decode(Bool.self)
        return (token, account)
    }

    public func revokeToken(id: Int64, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE access_tokens SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
    }

    public func revokeTokensBeyond(_ keep: Int, accountID: Int64, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            UPDATE access_tokens SET revoked_at = \(now)
            WHERE account_id = \(accountID) AND revoked_at IS NULL AND expires_at > \(now) AND id NOT IN (
                SELECT id FROM access_tokens WHERE account_id = \(accountID) AND revoked_at IS NULL AND expires_at > \(now)
                ORDER BY id DESC LIMIT \(keep))
            """)
    }

    @discardableResult
    public func pruneTokens(before cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM access_tokens WHERE expires_at < \(cutoff) OR (revoked_at IS NOT NULL AND revoked_at < \(cutoff))")
    }
}
