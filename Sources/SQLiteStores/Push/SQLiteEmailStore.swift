import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// The email channel's rows on SQLite: pending confirmations, the confirmation-mail log the
/// limits count, and unsubscribe links. Parameterised SQL only.
struct SQLiteEmailStore: EmailStoring {
    init() {}

    /// Replaces the device's pending confirmation (only the latest mail's code and link work).
    func savePending(_ pending: PendingEmailConfirmation, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO push_email_confirmations (device_id, code_hash, token_hash, expires_at, failed_attempts, created_at)
                VALUES (?, ?, ?, ?, 0, ?)
                ON CONFLICT (device_id) DO UPDATE SET code_hash = excluded.code_hash, token_hash = excluded.token_hash,
                    expires_at = excluded.expires_at, failed_attempts = 0, created_at = excluded.created_at
                """,
            arguments: [pending.deviceID, pending.codeHash, pending.tokenHash, pending.expiresAt, now]
        )
    }

    func pending(deviceID: Int64, in transaction: any StoreTransaction) throws -> PendingEmailConfirmation? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_email_confirmations WHERE device_id = ?", arguments: [deviceID]).map(Self.pending)
    }

    func pending(tokenHash: Data, in transaction: any StoreTransaction) throws -> PendingEmailConfirmation? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_email_confirmations WHERE token_hash = ?", arguments: [tokenHash]).map(Self.pending)
    }

    func recordWrongCode(deviceID: Int64, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_email_confirmations SET failed_attempts = failed_attempts + 1 WHERE device_id = ?", arguments: [deviceID])
    }

    func deletePending(deviceID: Int64, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_email_confirmations WHERE device_id = ?", arguments: [deviceID])
    }

    /// Logs a confirmation mail asked for, and forgets the account's entries past the window.
    func recordMail(accountID: Int64, deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "DELETE FROM push_email_mails WHERE account_id = ? AND requested_at <= ?",
            arguments: [accountID, now.addingTimeInterval(-EmailConfirmation.mailWindow)]
        )
        try db.execute(
            sql: "INSERT INTO push_email_mails (account_id, device_id, requested_at) VALUES (?, ?, ?)", arguments: [accountID, deviceID, now]
        )
    }

    /// When the account's confirmation mails since `since` were asked for, with their devices.
    func mails(accountID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [(deviceID: Int64, at: Date)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db, sql: "SELECT device_id, requested_at FROM push_email_mails WHERE account_id = ? AND requested_at > ? ORDER BY requested_at",
            arguments: [accountID, since]
        ).map { ($0["device_id"], $0["requested_at"]) }
    }

    /// Stores an unsubscribe link's hash and target; forgets the device's links past their lifetime.
    func insertUnsubscribe(tokenHash: Data, target: UnsubscribeTarget, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "DELETE FROM push_unsubscribes WHERE device_id = ? AND created_at < ?",
            arguments: [target.deviceID, now.addingTimeInterval(-UnsubscribeTarget.linkLifetime)]
        )
        try db.execute(
            sql: "INSERT INTO push_unsubscribes (token_hash, device_id, category, seat_alert_id, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [tokenHash, target.deviceID, target.category, target.seatAlertID, now]
        )
    }

    func unsubscribe(tokenHash: Data, in transaction: any StoreTransaction) throws -> StoredUnsubscribe? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_unsubscribes WHERE token_hash = ?", arguments: [tokenHash]).map { row in
            StoredUnsubscribe(
                target: UnsubscribeTarget(deviceID: row["device_id"], category: row["category"], seatAlertID: row["seat_alert_id"]),
                createdAt: row["created_at"], usedAt: row["used_at"]
            )
        }
    }

    /// Records the link's first use (later uses keep the first time).
    func markUsed(tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_unsubscribes SET used_at = COALESCE(used_at, ?) WHERE token_hash = ?", arguments: [now, tokenHash])
    }

    static func pending(_ row: Row) -> PendingEmailConfirmation {
        PendingEmailConfirmation(
            deviceID: row["device_id"], codeHash: row["code_hash"], tokenHash: row["token_hash"], expiresAt: row["expires_at"],
            failedAttempts: row["failed_attempts"]
        )
    }
}
