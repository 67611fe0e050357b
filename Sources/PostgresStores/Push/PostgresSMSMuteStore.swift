import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// ``SMSMuteStoring`` on PostgreSQL (`push_sms_mutes`, `push_sms_inbound`, `push_sms_keywords`).
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

    func recordInbound(messageSID: String, at: Date, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "INSERT INTO push_sms_inbound (message_sid, received_at) VALUES (\(messageSID), \(at)) ON CONFLICT (message_sid) DO NOTHING"
        ) > 0
    }

    func lastKeyword(recipient: Data, in transaction: any StoreTransaction) throws -> (keyword: SMSKeyword, at: Date)? {
        guard let row = try transaction.postgres().query(
            "SELECT keyword, received_at FROM push_sms_keywords WHERE recipient = \(recipient)"
        ).first else { return nil }
        let (keyword, at) = try row.decode((String, Date).self)
        return (keyword == "stop" ? .stop : .start, at)
    }

    func setLastKeyword(recipient: Data, keyword: SMSKeyword, messageSID: String, at: Date, in transaction: any StoreTransaction) throws {
        let name = keyword == .stop ? "stop" : "start"
        try transaction.postgres().execute("""
            INSERT INTO push_sms_keywords (recipient, keyword, message_sid, received_at) VALUES (\(recipient), \(name), \(messageSID), \(at))
            ON CONFLICT (recipient) DO UPDATE SET keyword = EXCLUDED.keyword, message_sid = EXCLUDED.message_sid, received_at = EXCLUDED.received_at
            """)
    }
}
