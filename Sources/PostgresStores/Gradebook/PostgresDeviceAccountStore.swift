import Contracts
import Foundation
import Gradebook
import PostgresNIO
import Storage
import PostgresStorage

/// ``DeviceAccountStoring`` on PostgreSQL: the upstream accounts QuickHAC devices poll.
struct PostgresDeviceAccountStore: DeviceAccountStoring {
    init() {}

    static let columns = "id, device_key, source_id, username, sealed_password"

    static func row(_ row: PostgresRow) throws -> StoredDeviceAccount {
        let (id, deviceKey, sourceID, username, sealed) = try row.decode((Int64, String, Int64, String, String).self)
        return StoredDeviceAccount(id: id, deviceKey: deviceKey, sourceID: sourceID, username: username, sealedPassword: sealed)
    }

    func find(deviceKey: String, username: String, in transaction: any StoreTransaction) throws -> StoredDeviceAccount? {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.columns) FROM gradebook_device_accounts WHERE device_key = \(deviceKey) AND username = \(username)
            """).first.map(Self.row)
    }

    func rekey(deviceKey: String, to newKey: String, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE gradebook_device_accounts SET device_key = \(newKey) WHERE device_key = \(deviceKey)")
    }

    func deleteAll(deviceKey: String, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("DELETE FROM gradebook_device_accounts WHERE device_key = \(deviceKey)")
    }

    func count(deviceKey: String, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().query("SELECT COUNT(*) FROM gradebook_device_accounts WHERE device_key = \(deviceKey)").first?.decode(Int.self) ?? 0
    }

    func upsert(deviceKey: String, sourceID: Int64, username: String, at now: Date, in transaction: any StoreTransaction) throws -> (Int64, Bool) {
        let row = try transaction.postgres().query("""
            INSERT INTO gradebook_device_accounts (device_key, source_id, username, sealed_password, created_at, updated_at)
            VALUES (\(deviceKey), \(sourceID), \(username), '', \(now), \(now))
            ON CONFLICT (device_key, username) DO UPDATE SET source_id = excluded.source_id, updated_at = excluded.updated_at
            RETURNING id, (xmax = 0)
            """).first!
        let (id, inserted) = try row.decode((Int64, Bool).self)
        return (id, inserted)
    }

    func setSealed(id: Int64, sealed: String, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE gradebook_device_accounts SET sealed_password = \(sealed) WHERE id = \(id)")
    }

    func replaceSealed(id: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "UPDATE gradebook_device_accounts SET sealed_password = \(sealed) WHERE id = \(id) AND sealed_password = \(expected)"
        ) > 0
    }

    func deleteSealed(id: Int64, expected: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM gradebook_device_accounts WHERE id = \(id) AND sealed_password = \(expected)") > 0
    }

    func row(id: Int64, in transaction: any StoreTransaction) throws -> StoredDeviceAccount? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_device_accounts WHERE id = \(id)").first.map(Self.row)
    }

    func all(in transaction: any StoreTransaction) throws -> [StoredDeviceAccount] {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_device_accounts ORDER BY id").map(Self.row)
    }

    func pollIntervals(in transaction: any StoreTransaction) throws -> [Int64: Int] {
        var intervals: [Int64: Int] = [:]
        for row in try transaction.postgres().query("""
            SELECT a.id, s.poll_interval_seconds FROM gradebook_device_accounts a JOIN gradebook_sources s ON s.id = a.source_id
            """) {
            let (id, interval) = try row.decode((Int64, Int).self)
            intervals[id] = interval
        }
        return intervals
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("DELETE FROM gradebook_device_accounts WHERE id = \(id)")
    }
}
