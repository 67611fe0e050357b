public import Contracts
public import Foundation
public import GatewayCore
import Storage

/// Everything Auth keeps, behind one protocol: ``SQLiteAccountStore`` on the service's SQLite
/// file; a PostgreSQL backend would add a second implementation without touching services or
/// routes. Every method runs inside the caller's transaction (``TransactionRunner``).
public protocol AccountStoring: Sendable {
    /// Inserts an account; a taken username or email is ``AuthError/accountExists(field:)``.
    func insert(_ account: Account, in transaction: any StoreTransaction) throws -> Account
    /// The database's server key (made once), for HMACs of usernames in the throttle and logs.
    func serverKey(in transaction: any StoreTransaction) throws -> Data
    func count(in transaction: any StoreTransaction) throws -> Int
    func find(username: String, in transaction: any StoreTransaction) throws -> Account?
    func find(email: String, in transaction: any StoreTransaction) throws -> Account?
    func find(id: Int64, in transaction: any StoreTransaction) throws -> Account?
    /// Whether ``findInTask(id:in:)`` is offered: the request path's lookup of an account by
    /// id sent from the caller's task (``TransactionRunner/inTask(_:)``), a prepared statement
    /// on PostgreSQL. SQLite's statements run on its own threads, so it offers none.
    var findsInTask: Bool { get }
    /// ``find(id:in:)`` from the caller's task, where ``findsInTask``.
    func findInTask(id: Int64, in transaction: any StoreTransaction) async throws -> Account?
    func updatePasswordHash(accountID: Int64, hash: String, in transaction: any StoreTransaction) throws
    /// Changes the username; a taken one is ``AuthError/accountExists(field:)``.
    func rename(accountID: Int64, to username: String, in transaction: any StoreTransaction) throws
    /// Those of `ids` whose accounts exist and are enabled.
    func enabledAccounts(among ids: [Int64], in transaction: any StoreTransaction) throws -> Set<Int64>
    func setStatus(accountID: Int64, disabled: Bool, role: Role, in transaction: any StoreTransaction) throws
    /// The names of those of `ids` that have any (``DisplayNames``), by account id.
    func displayNames(of ids: [Int64], in transaction: any StoreTransaction) throws -> [Int64: DisplayNames]
    /// Sets (or, with nil, clears) the name the student chose.
    func setChosenDisplayName(_ name: String?, accountID: Int64, in transaction: any StoreTransaction) throws
    /// Sets the name the student's registration profile suggests.
    func setProfileDisplayName(_ name: String?, accountID: Int64, in transaction: any StoreTransaction) throws
    /// Revokes every live token of an account except `keeping`; returns how many.
    @discardableResult
    func revokeTokens(accountID: Int64, keeping: Int64?, now: Date, in transaction: any StoreTransaction) throws -> Int
    /// Accounts by id after `id`.
    func list(after id: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Account]
    func insertToken(_ token: AccessToken, in transaction: any StoreTransaction) throws -> AccessToken
    /// The live token with this hash and its (enabled) account.
    func liveToken(hash: Data, now: Date, in transaction: any StoreTransaction) throws -> (AccessToken, Account)?
    func revokeToken(id: Int64, now: Date, in transaction: any StoreTransaction) throws
    /// Revokes an account's live tokens other than its `keep` newest.
    func revokeTokensBeyond(_ keep: Int, accountID: Int64, now: Date, in transaction: any StoreTransaction) throws
    /// Deletes tokens that expired or were revoked before `cutoff`; returns how many.
    @discardableResult
    func pruneTokens(before cutoff: Date, in transaction: any StoreTransaction) throws -> Int
}

extension AccountStoring {
    public var findsInTask: Bool { false }

    public func findInTask(id: Int64, in transaction: any StoreTransaction) async throws -> Account? {
        throw NoStatementsInTask()
    }
}
