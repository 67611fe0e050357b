public import Auth
public import Contracts
public import Foundation
import GRDB
import Storage
import SQLiteStorage

/// ``CampusSignInStoring`` on SQLite.
public struct SQLiteCampusSignInStore: CampusSignInStoring {
    public init() {}

    public func insertFlow(_ flow: CampusSignInFlow, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: """
                INSERT INTO auth_campus_flows (state_hash, browser_hash, nonce, code_verifier, return_to, expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [flow.stateHash, flow.browserHash, flow.nonce, flow.codeVerifier, flow.returnTo, flow.expiresAt]
        )
    }

    public func liveFlows(now: Date, limit: Int, in transaction: any StoreTransaction) throws -> Int {
        try Int.fetchOne(
            transaction.sqlite(),
            sql: "SELECT count(*) FROM (SELECT 1 FROM auth_campus_flows WHERE expires_at > ? LIMIT ?)", arguments: [now, limit]
        ) ?? 0
    }

    public func takeFlow(stateHash: Data, in transaction: any StoreTransaction) throws -> CampusSignInFlow? {
        try Row.fetchOne(
            transaction.sqlite(),
            sql: "DELETE FROM auth_campus_flows WHERE state_hash = ? RETURNING browser_hash, nonce, code_verifier, return_to, expires_at",
            arguments: [stateHash]
        ).map {
            CampusSignInFlow(
                stateHash: stateHash, browserHash: $0["browser_hash"], nonce: $0["nonce"], codeVerifier: $0["code_verifier"],
                returnTo: $0["return_to"], expiresAt: $0["expires_at"]
            )
        }
    }

    public func identity(issuer: String, subject: String, in transaction: any StoreTransaction) throws -> CampusIdentity? {
        try Row.fetchOne(
            transaction.sqlite(), sql: "SELECT \(Self.columns) FROM auth_campus_identities WHERE issuer = ? AND subject = ?",
            arguments: [issuer, subject]
        ).map(Self.identity)
    }

    public func identity(accountID: Int64, in transaction: any StoreTransaction) throws -> CampusIdentity? {
        try Row.fetchOne(
            transaction.sqlite(), sql: "SELECT \(Self.columns) FROM auth_campus_identities WHERE account_id = ?", arguments: [accountID]
        ).map(Self.identity)
    }

    public func save(_ identity: CampusIdentity, at: Date, in transaction: any StoreTransaction) throws {
        do {
            try transaction.sqlite().execute(
                sql: """
                    INSERT INTO auth_campus_identities (issuer, subject, account_id, email, email_verified, name, linked_at, signed_in_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (issuer, subject) DO UPDATE SET email = excluded.email, email_verified = excluded.email_verified,
                        name = excluded.name, signed_in_at = excluded.signed_in_at
                    WHERE auth_campus_identities.account_id = excluded.account_id
                    """,
                arguments: [identity.issuer, identity.subject, identity.accountID, identity.email, identity.emailVerified, identity.name, at, at]
            )
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw AuthError.identityLinked
        }
        guard try transaction.sqlite().changesCount > 0 else { throw AuthError.identityLinked }
    }

    public func insertCode(hash: Data, browserHash: Data, accountID: Int64, expiresAt: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: "INSERT INTO auth_campus_codes (code_hash, browser_hash, account_id, expires_at) VALUES (?, ?, ?, ?)",
            arguments: [hash, browserHash, accountID, expiresAt]
        )
    }

    public func takeCode(hash: Data, now: Date, in transaction: any StoreTransaction) throws -> CampusSignInCode? {
        let row = try Row.fetchOne(
            transaction.sqlite(), sql: "DELETE FROM auth_campus_codes WHERE code_hash = ? RETURNING account_id, browser_hash, expires_at",
            arguments: [hash]
        )
        guard let row, (row["expires_at"] as Date) > now else { return nil }
        return CampusSignInCode(accountID: row["account_id"], browserHash: row["browser_hash"])
    }

    public func prune(before cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM auth_campus_flows WHERE expires_at < ?", arguments: [cutoff])
        let flows = db.changesCount
        try db.execute(sql: "DELETE FROM auth_campus_codes WHERE expires_at < ?", arguments: [cutoff])
        return flows + db.changesCount
    }

    static let columns = "issuer, subject, account_id, email, email_verified, name"

    static func identity(_ row: Row) -> CampusIdentity {
        CampusIdentity(
            issuer: row["issuer"], subject: row["subject"], accountID: row["account_id"], email: row["email"],
            emailVerified: row["email_verified"], name: row["name"]
        )
    }
}
