import Contracts
import Foundation
import PostgresNIO
import Push
import Storage

/// ``SMSMuteStoring`` on PostgreSQL (`push_sms_mutes`).
struct PostgresSMSMuteStore: SMSMuteStoring {
    init() {}

    func mute(recipient: Data, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute(
            "INSERT INTO push_sms_mutes (recipient, muted_at) VALUES (\(recipient), \(now)) ON CONFLICT (recipient) DO NOTHING"
        )
    }

    func unmute(recipient: Data, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM push_sms_mutes WHERE recipient = \(recipient)") > 0
    }

    func isMuted(recipient: Data, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().query("SELECT 1 FROM push_sms_mutes WHERE recipient = \(recipient)").first != nil
    }
}
