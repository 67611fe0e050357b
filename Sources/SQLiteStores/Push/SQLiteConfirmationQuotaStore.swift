import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// ``ConfirmationQuotaStoring`` on SQLite (`push_confirmation_sends`, `push_secrets`). The
/// gateway has one writer on SQLite, so a count and the send it allows are never interleaved
/// with another's.
struct SQLiteConfirmationQuotaStore: ConfirmationQuotaStoring {
    init() {}

    func recipientSecret(in transaction: any StoreTransaction) throws -> Data {
        let db = try transaction.sqlite()
        guard let secret = try Data.fetchOne(db, sql: "SELECT value FROM push_secrets WHERE name = ?", arguments: [PushSecretName.confirmationRecipients])
        else { throw MissingSecret(name: PushSecretName.confirmationRecipients) }
        return secret
    }

    func sends(channel: ConfirmableChannel, recipient: Data, since: Date, in transaction: any StoreTransaction) throws -> [Date] {
        let db = try transaction.sqlite()
        return try Date.fetchAll(
            db, sql: "SELECT sent_at FROM push_confirmation_sends WHERE channel = ? AND recipient = ? AND sent_at > ? ORDER BY sent_at",
            arguments: [channel.rawValue, recipient, since]
        )
    }

    func sendCount(channel: ConfirmableChannel, since: Date, in transaction: any StoreTransaction) throws -> (count: Int, oldest: Date?) {
        let db = try transaction.sqlite()
        let row = try Row.fetchOne(
            db, sql: "SELECT count(*) AS n, min(sent_at) AS oldest FROM push_confirmation_sends WHERE channel = ? AND sent_at > ?",
            arguments: [channel.rawValue, since]
        )
        return (row?["n"] ?? 0, row?["oldest"])
    }

    func networkSends(channel: ConfirmableChannel, network: Data, since: Date, in transaction: any StoreTransaction) throws -> [SMSQuota.Send] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db,
            sql: "SELECT sent_at, new_device FROM push_confirmation_sends WHERE channel = ? AND network = ? AND sent_at > ? ORDER BY sent_at",
            arguments: [channel.rawValue, network, since]
        ).map { SMSQuota.Send(at: $0["sent_at"], newDevice: $0["new_device"]) }
    }

    func recordSend(
        channel: ConfirmableChannel, recipient: Data, network: Data?, newDevice: Bool, at: Date, in transaction: any StoreTransaction
    ) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_confirmation_sends WHERE sent_at <= ?", arguments: [at.addingTimeInterval(-RecipientQuota.window)])
        try db.execute(
            sql: "INSERT INTO push_confirmation_sends (channel, recipient, network, new_device, sent_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [channel.rawValue, recipient, network, newDevice, at]
        )
    }
}
