import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// ``SMSMuteStoring`` on SQLite (`push_sms_mutes`, `push_sms_inbound`, `push_sms_keywords`).
struct SQLiteSMSMuteStore: SMSMuteStoring {
    init() {}

    func mute(recipient: Data, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: "INSERT INTO push_sms_mutes (recipient, muted_at) VALUES (?, ?) ON CONFLICT (recipient) DO NOTHING", arguments: [recipient, now]
        )
    }

    func unmute(recipient: Data, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_sms_mutes WHERE recipient = ?", arguments: [recipient])
        return db.changesCount > 0
    }

    func isMuted(recipient: Data, in transaction: any StoreTransaction) throws -> Bool {
        try Bool.fetchOne(try transaction.sqlite(), sql: "SELECT EXISTS (SELECT 1 FROM push_sms_mutes WHERE recipient = ?)", arguments: [recipient]) ?? false
    }

    func recordInbound(messageSID: String, at: Date, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "INSERT INTO push_sms_inbound (message_sid, received_at) VALUES (?, ?) ON CONFLICT (message_sid) DO NOTHING", arguments: [messageSID, at]
        )
        return db.changesCount > 0
    }

    func lastKeyword(recipient: Data, in transaction: any StoreTransaction) throws -> (keyword: SMSKeyword, at: Date)? {
        guard let row = try Row.fetchOne(
            try transaction.sqlite(), sql: "SELECT keyword, received_at FROM push_sms_keywords WHERE recipient = ?", arguments: [recipient]
        ) else { return nil }
        let keyword: String = row["keyword"]
        return (keyword == "stop" ? .stop : .start, row["received_at"])
    }

    func setLastKeyword(recipient: Data, keyword: SMSKeyword, messageSID: String, at: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: """
                INSERT INTO push_sms_keywords (recipient, keyword, message_sid, received_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (recipient) DO UPDATE SET keyword = excluded.keyword, message_sid = excluded.message_sid, received_at = excluded.received_at
                """,
            arguments: [recipient, keyword == .stop ? "stop" : "start", messageSID, at]
        )
    }
}
