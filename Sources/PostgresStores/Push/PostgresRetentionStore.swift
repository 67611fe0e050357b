import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// What Push keeps that ages out, on PostgreSQL: QuickHAC devices nobody has seen for long,
/// and finished notifications.
struct PostgresRetentionStore: PushRetentionStoring {
    init() {}

    func markSeen(deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE push_devices SET registered_at = \(now) WHERE id = \(deviceID)")
    }

    func expiredQuickHACDevices(
        unfollowedBefore: Date, unseenBefore: Date, limit: Int, in transaction: any StoreTransaction
    ) throws -> [(id: Int64, key: String)] {
        try transaction.postgres().query("""
            SELECT id, uuid_hash FROM push_devices d
            WHERE d.uuid_hash IS NOT NULL AND d.account_id IS NULL AND (
                d.registered_at < \(unseenBefore)
                OR (d.registered_at < \(unfollowedBefore) AND NOT EXISTS (SELECT 1 FROM push_device_students s WHERE s.device_id = d.id))
            )
            ORDER BY id LIMIT \(limit)
            """).map { row in
            let (id, key) = try row.decode((Int64, String).self)
            return (id, key)
        }
    }

    func pruneNotifications(finishedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM push_notifications WHERE state <> 'pending' AND created_at < \(cutoff)")
    }

    func pruneInboundTexts(receivedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM push_sms_inbound WHERE received_at < \(cutoff)")
    }
}
