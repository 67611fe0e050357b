import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

struct SQLiteRetentionStore: PushRetentionStoring {
    init() {}

    func markSeen(deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET registered_at = ? WHERE id = ?", arguments: [now, deviceID])
    }

    func expiredQuickHACDevices(
        unfollowedBefore: Date, unseenBefore: Date, limit: Int, in transaction: any StoreTransaction
    ) throws -> [(id: Int64, key: String)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, uuid_hash FROM push_devices d
                WHERE d.uuid_hash IS NOT NULL AND d.account_id IS NULL AND (
                    d.registered_at < ?
                    OR (d.registered_at < ? AND NOT EXISTS (SELECT 1 FROM push_device_students s WHERE s.device_id = d.id))
                )
                ORDER BY id LIMIT ?
                """,
            arguments: [unseenBefore, unfollowedBefore, limit]
        ).map { ($0["id"], $0["uuid_hash"]) }
    }

    func pruneNotifications(finishedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_notifications WHERE state <> 'pending' AND created_at < ?", arguments: [cutoff])
        return db.changesCount
    }

    func pruneInboundTexts(receivedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_sms_inbound WHERE received_at < ?", arguments: [cutoff])
        return db.changesCount
    }
}
