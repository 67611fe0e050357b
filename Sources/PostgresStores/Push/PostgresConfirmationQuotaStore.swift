import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// ``ConfirmationQuotaStoring`` on PostgreSQL. Write units are SERIALIZABLE, so two instances
/// counting one recipient (or one client network, or the gateway-wide cap) at once can't both
/// pass its limit: one is aborted and runs again. Every instance counts in this one table, so
/// the texts' per-network shares and their hourly cap hold across instances.
struct PostgresConfirmationQuotaStore: ConfirmationQuotaStoring {
    init() {}

    func recipientSecret(in transaction: any StoreTransaction) throws -> Data {
        guard let row = try transaction.postgres().query(
            "SELECT value FROM push_secrets WHERE name = \(PushSecretName.confirmationRecipients)"
        ).first else { throw MissingSecret(name: PushSecretName.confirmationRecipients) }
        return try row.decode(Data.self)
    }

    func sends(channel: ConfirmableChannel, recipient: Data, since: Date, in transaction: any StoreTransaction) throws -> [Date] {
        try transaction.postgres().query("""
            SELECT sent_at FROM push_confirmation_sends
            WHERE channel = \(channel.rawValue) AND recipient = \(recipient) AND sent_at > \(since) ORDER BY sent_at
            """).map { try $0.decode(Date.self) }
    }

    func sendCount(channel: ConfirmableChannel, since: Date, in transaction: any StoreTransaction) throws -> (count: Int, oldest: Date?) {
        guard let row = try transaction.postgres().query(
            "SELECT count(*), min(sent_at) FROM push_confirmation_sends WHERE channel = \(channel.rawValue) AND sent_at > \(since)"
        ).first else { return (0, nil) }
        let (count, oldest) = try row.decode((Int64, Date?).self)
        return (Int(count), oldest)
    }

    func networkSends(channel: ConfirmableChannel, network: Data, since: Date, in transaction: any StoreTransaction) throws -> [SMSQuota.Send] {
        try transaction.postgres().query("""
            SELECT sent_at, new_device FROM push_confirmation_sends
            WHERE channel = \(channel.rawValue) AND network = \(network) AND sent_at > \(since) ORDER BY sent_at
            """).map { row in
            let (at, newDevice) = try row.decode((Date, Bool).self)
            return SMSQuota.Send(at: at, newDevice: newDevice)
        }
    }

    func recordSend(
        channel: ConfirmableChannel, recipient: Data, network: Data?, newDevice: Bool, at: Date, in transaction: any StoreTransaction
    ) throws {
        let transaction = try transaction.postgres()
        try transaction.execute("DELETE FROM push_confirmation_sends WHERE sent_at <= \(at.addingTimeInterval(-RecipientQuota.window))")
        try transaction.execute("""
            INSERT INTO push_confirmation_sends (channel, recipient, network, new_device, sent_at)
            VALUES (\(channel.rawValue), \(recipient), \(network), \(newDevice), \(at))
            """)
    }
}
