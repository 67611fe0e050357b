import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// The email channel's rows on PostgreSQL: pending confirmations, the confirmation-mail log the
/// limits count, and unsubscribe links (token hashes as `bytea`, never the tokens).
struct PostgresEmailStore: EmailStoring {
    init() {}

    static let pendingColumns = "device_id, code_hash, token_hash, expires_at, failed_attempts"

    /// Replaces the device's pending confirmation (only the latest mail's code and link work).
    func savePending(_ pending: PendingEmailConfirmation, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO push_email_confirmations (device_id, code_hash, token_hash, expires_at, failed_attempts, created_at)
            VALUES (\(pending.deviceID), \(pending.codeHash), \(pending.tokenHash), \(pending.expiresAt), 0, \(now))
            ON CONFLICT (device_id) DO UPDATE SET code_hash = excluded.code_hash, token_hash = excluded.token_hash,
                expires_at = excluded.expires_at, failed_attempts = 0, created_at = excluded.created_at
            """)
    }

    func pending(deviceID: Int64, in transaction: any StoreTransaction) throws -> PendingEmailConfirmation? {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.pendingColumns) FROM push_email_confirmations WHERE device_id = \(deviceID)"
        ).first.map(Self.pending)
    }

    func pending(tokenHash: Data, in transaction: any StoreTransaction) throws -> PendingEmailConfirmation? {
        try transaction.postgres().query(
            "SELECT \(unescaped: Self.pendingColumns) FROM push_email_confirmations WHERE token_hash = \(tokenHash)"
        ).first.map(Self.pending)
    }

    func recordWrongCode(deviceID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute(
            "UPDATE push_email_confirmations SET failed_attempts = failed_attempts + 1 WHERE device_id = \(deviceID)"
        )
    }

    func deletePending(deviceID: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("DELETE FROM push_email_confirmations WHERE device_id = \(deviceID)")
    }

    /// Logs a confirmation mail asked for, and forgets the account's entries past the window.
    func recordMail(accountID: Int64, deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        let horizon = now.addingTimeInterval(-EmailConfirmation.mailWindow)
        try transaction.execute("DELETE FROM push_email_mails WHERE account_id = \(accountID) AND requested_at <= \(horizon)")
        try transaction.execute(
            "INSERT INTO push_email_mails (account_id, device_id, requested_at) VALUES (\(accountID), \(deviceID), \(now))"
        )
    }

    /// When the account's confirmation mails since `since` were asked for, with their devices.
    func mails(accountID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [(deviceID: Int64, at: Date)] {
        try transaction.postgres().query("""
            SELECT device_id, requested_at FROM push_email_mails WHERE account_id = \(accountID) AND requested_at > \(since)
            ORDER BY requested_at, id
            """).map { row in
            let (deviceID, at) = try row.decode((Int64, Date).self)
            return (deviceID, at)
        }
    }

    /// Stores an unsubscribe link's hash and target; forgets the device's links past their lifetime.
    func insertUnsubscribe(tokenHash: Data, target: UnsubscribeTarget, at now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        let horizon = now.addingTimeInterval(-UnsubscribeTarget.linkLifetime)
        try transaction.execute("DELETE FROM push_unsubscribes WHERE device_id = \(target.deviceID) AND created_at < \(horizon)")
        try transaction.execute("""
            INSERT INTO push_unsubscribes (token_hash, device_id, category, seat_alert_id, created_at)
            VALUES (\(tokenHash), \(target.deviceID), \(target.category), \(target.seatAlertID), \(now))
            """)
    }

    func unsubscribe(tokenHash: Data, in transaction: any StoreTransaction) throws -> StoredUnsubscribe? {
        guard let row = try transaction.postgres().query(
            "SELECT device_id, category, seat_alert_id, created_at, used_at FROM push_unsubscribes WHERE token_hash = \(tokenHash)"
        ).first else { return nil }
        let (deviceID, category, seatAlertID, createdAt, usedAt) = try row.decode((Int64, String, Int64?, Date, Date?).self)
        return StoredUnsubscribe(
            target: UnsubscribeTarget(deviceID: deviceID, category: category, seatAlertID: seatAlertID), createdAt: createdAt, usedAt: usedAt
        )
    }

    /// Records the link's first use (later uses keep the first time).
    func markUsed(tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE push_unsubscribes SET used_at = COALESCE(used_at, \(now)) WHERE token_hash = \(tokenHash)")
    }

    /// A pending confirmation from a row of ``pendingColumns``.
    static func pending(_ row: PostgresRow) throws -> PendingEmailConfirmation {
        let (deviceID, codeHash, tokenHash, expiresAt, failedAttempts) = try row.decode((Int64, Data, Data, Date, Int).self)
        return PendingEmailConfirmation(deviceID: deviceID, codeHash: codeHash, tokenHash: tokenHash, expiresAt: expiresAt, failedAttempts: failedAttempts)
    }
}
