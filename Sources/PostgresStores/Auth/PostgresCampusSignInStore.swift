public import Auth
public import Contracts
public import Foundation
import PostgresNIO
import Storage
import PostgresStorage

/// ``CampusSignInStoring`` on PostgreSQL: a flow started on one instance can finish on another.
public struct PostgresCampusSignInStore: CampusSignInStoring {
    public init() {}

    public func insertFlow(_ flow: CampusSignInFlow, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO auth_campus_flows (state_hash, browser_hash, nonce, code_verifier, return_to, expires_at)
            VALUES (\(flow.stateHash), \(flow.browserHash), \(flow.nonce), \(flow.codeVerifier), \(flow.returnTo), \(flow.expiresAt))
            """)
    }

    public func liveFlows(now: Date, limit: Int, in transaction: any StoreTransaction) throws -> Int {
        guard let row = try transaction.postgres().query(
            "SELECT count(*)::bigint FROM (SELECT 1 FROM auth_campus_flows WHERE expires_at > \(now) LIMIT \(limit)) AS live"
        ).first else { return 0 }
        return Int(try row.decode(Int64.self))
    }

    public func takeFlow(stateHash: Data, in transaction: any StoreTransaction) throws -> CampusSignInFlow? {
        guard let row = try transaction.postgres().query("""
            DELETE FROM auth_campus_flows WHERE state_hash = \(stateHash) RETURNING browser_hash, nonce, code_verifier, return_to, expires_at
            """).first else { return nil }
        let (browser, nonce, verifier, returnTo, expiresAt) = try row.decode((Data, String, String, String, Date).self)
        return CampusSignInFlow(
            stateHash: stateHash, browserHash: browser, nonce: nonce, codeVerifier: verifier, returnTo: returnTo, expiresAt: expiresAt
        )
    }

    public func identity(issuer: String, subject: String, in transaction: any StoreTransaction) throws -> CampusIdentity? {
        try transaction.postgres().query("""
            SELECT issuer, subject, account_id, email, email_verified, name FROM auth_campus_identities
            WHERE issuer = \(issuer) AND subject = \(subject)
            """).first.map(Self.identity)
    }

    public func identity(accountID: Int64, in transaction: any StoreTransaction) throws -> CampusIdentity? {
        try transaction.postgres().query("""
            SELECT issuer, subject, account_id, email, email_verified, name FROM auth_campus_identities WHERE account_id = \(accountID)
            """).first.map(Self.identity)
    }

    public func save(_ identity: CampusIdentity, at: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        let changed: Int
        do {
            changed = try transaction.savepoint {
                try transaction.execute("""
                    INSERT INTO auth_campus_identities (issuer, subject, account_id, email, email_verified, name, linked_at, signed_in_at)
                    VALUES (\(identity.issuer), \(identity.subject), \(identity.accountID), \(identity.email), \(identity.emailVerified),
                            \(identity.name), \(at), \(at))
                    ON CONFLICT (issuer, subject) DO UPDATE SET email = excluded.email, email_verified = excluded.email_verified,
                        name = excluded.name, signed_in_at = excluded.signed_in_at
                    WHERE auth_campus_identities.account_id = excluded.account_id
                    """)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw AuthError.identityLinked
        }
        guard changed > 0 else { throw AuthError.identityLinked }
    }

    public func insertCode(hash: Data, browserHash: Data, accountID: Int64, expiresAt: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute(
            "INSERT INTO auth_campus_codes (code_hash, browser_hash, account_id, expires_at) VALUES (\(hash), \(browserHash), \(accountID), \(expiresAt))"
        )
    }

    public func takeCode(hash: Data, now: Date, in transaction: any StoreTransaction) throws -> CampusSignInCode? {
        guard let row = try transaction.postgres().query(
            "DELETE FROM auth_campus_codes WHERE code_hash = \(hash) RETURNING account_id, browser_hash, expires_at"
        ).first else { return nil }
        let (accountID, browserHash, expiresAt) = try row.decode((Int64, Data?, Date).self)
        return expiresAt > now ? CampusSignInCode(accountID: accountID, browserHash: browserHash) : nil
    }

    public func prune(before cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let transaction = try transaction.postgres()
        return try transaction.execute("DELETE FROM auth_campus_flows WHERE expires_at < \(cutoff)")
            + transaction.execute("DELETE FROM auth_campus_codes WHERE expires_at < \(cutoff)")
    }

    static func identity(_ row: PostgresRow) throws -> CampusIdentity {
        let (issuer, subject, accountID, email, verified, name) = try row.decode((String, String, Int64, String?, Bool, String?).self)
        return CampusIdentity(issuer: issuer, subject: subject, accountID: accountID, email: email, emailVerified: verified, name: name)
    }
}
