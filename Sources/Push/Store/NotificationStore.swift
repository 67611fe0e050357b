public import Contracts
public import Foundation
import Storage

/// The outbox, behind a protocol (``SQLiteNotificationStore``).
public protocol NotificationStoring: Sendable {
    /// Adds a notification for a device unless one with the same unique key exists; returns
    /// the new row's id, or nil for a duplicate (a retried or replayed job).
    func insert(
        deviceID: Int64, uniqueKey: String, notification: OutgoingNotification, at now: Date, deliverAt: Date, in transaction: any StoreTransaction
    ) throws -> Int64?
    /// Whether the device already has a notification with this key.
    func exists(deviceID: Int64, uniqueKey: String, in transaction: any StoreTransaction) throws -> Bool
    /// Delivery times of the device's notifications scheduled after `since` (the hourly budget).
    func scheduledTimes(deviceID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [Date]
    func notification(id: Int64, in transaction: any StoreTransaction) throws -> StoredNotification?
    func record(id: Int64, state: StoredNotification.State, error: String?, at now: Date, in transaction: any StoreTransaction) throws
    /// Newest first, optionally of one state and device.
    func recent(state: StoredNotification.State?, deviceIDs: [Int64]?, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [StoredNotification]
    func counts(in transaction: any StoreTransaction) throws -> [StoredNotification.State: Int]
}
