public import Contracts
public import Foundation
import GRDB
import Storage

/// Where the QuickHAC device key's secret is kept and how a device moves to a new key,
/// behind a protocol (``SQLiteQuickHACKeyStore``).
public protocol QuickHACKeyStoring: Sendable {
    /// The server secret device keys are made under (made once by the migration).
    func deviceKeySecret(in transaction: any StoreTransaction) throws -> Data
    /// Moves a device from its old key to its new one.
    func rekey(deviceID: Int64, to uuidHash: String, in transaction: any StoreTransaction) throws
}

public struct SQLiteQuickHACKeyStore: QuickHACKeyStoring {
    public init() {}

    public func deviceKeySecret(in transaction: any StoreTransaction) throws -> Data {
        let db = try transaction.sqlite()
        guard let secret = try Data.fetchOne(db, sql: "SELECT value FROM push_secrets WHERE name = 'quickhac-device-key'") else {
            throw MissingSecret()
        }
        return secret
    }

    public func rekey(deviceID: Int64, to uuidHash: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET uuid_hash = ? WHERE id = ?", arguments: [uuidHash, deviceID])
    }
}

/// The migration that makes the secret has not run on this database.
struct MissingSecret: Error, CustomStringConvertible {
    var description: String { "push_secrets has no quickhac-device-key: the push migrations have not run" }
}

/// What Push keeps that ages out, behind a protocol (``SQLiteRetentionStore``).
public protocol PushRetentionStoring: Sendable {
    /// Marks a QuickHAC device seen now (it called `register`, as the app does at launch).
    func markSeen(deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// QuickHAC devices (id and key) that follow nobody and were last seen before
    /// `unfollowedBefore`, or were last seen before `unseenBefore`; at most `limit`.
    func expiredQuickHACDevices(unfollowedBefore: Date, unseenBefore: Date, limit: Int, in transaction: any StoreTransaction) throws -> [(id: Int64, key: String)]
    /// Deletes notifications delivered, discarded or failed before `cutoff`; how many.
    func pruneNotifications(finishedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int
}

public struct SQLiteRetentionStore: PushRetentionStoring {
    public init() {}

    public func markSeen(deviceID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET registered_at = ? WHERE id = ?", arguments: [now, deviceID])
    }

    public func expiredQuickHACDevices(
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

    public func pruneNotifications(finishedBefore cutoff: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_notifications WHERE state <> 'pending' AND created_at < ?", arguments: [cutoff])
        return db.changesCount
    }
}
