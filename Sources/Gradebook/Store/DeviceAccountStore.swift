public import Contracts
public import Foundation
import Storage

/// Gradebook accounts owned by devices (QuickHAC phones), their passwords sealed
/// (``SQLiteDeviceAccountStore`` on SQLite).
public protocol DeviceAccountStoring: Sendable {
    func find(deviceKey: String, username: String, in transaction: any StoreTransaction) throws -> StoredDeviceAccount?
    func rekey(deviceKey: String, to newKey: String, in transaction: any StoreTransaction) throws
    /// Deletes every account of a device (their snapshots go with them).
    func deleteAll(deviceKey: String, in transaction: any StoreTransaction) throws
    func count(deviceKey: String, in transaction: any StoreTransaction) throws -> Int
    func upsert(deviceKey: String, sourceID: Int64, username: String, at now: Date, in transaction: any StoreTransaction) throws -> (Int64, Bool)
    func setSealed(id: Int64, sealed: String, in transaction: any StoreTransaction) throws
    func replaceSealed(id: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool
    func deleteSealed(id: Int64, expected: String, in transaction: any StoreTransaction) throws -> Bool
    func row(id: Int64, in transaction: any StoreTransaction) throws -> StoredDeviceAccount?
    func all(in transaction: any StoreTransaction) throws -> [StoredDeviceAccount]
    /// Every device account's source poll interval, in seconds.
    func pollIntervals(in transaction: any StoreTransaction) throws -> [Int64: Int]
    func delete(id: Int64, in transaction: any StoreTransaction) throws
}
