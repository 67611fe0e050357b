import Contracts
import Foundation
import GRDB
import Push
import Storage

/// ``SMSMuteStoring`` on SQLite (`push_sms_mutes`).
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
}
