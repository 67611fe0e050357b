import Contracts
import Foundation
import GRDB
import Gradebook
import Storage
import SQLiteStorage

/// Gradebook accounts owned by devices (``DeviceGradebookAccounts``), on SQLite.
struct SQLiteDeviceAccountStore: DeviceAccountStoring {
    init() {}

    func find(deviceKey: String, username: String, in transaction: any StoreTransaction) throws -> StoredDeviceAccount? {
        let db = try transaction.sqlite()
        return try GRDB.Row.fetchOne(
            db, sql: "SELECT * FROM gradebook_device_accounts WHERE device_key = ? AND username = ?", arguments: [deviceKey, username]
        ).map(Self.row)
    }

    func rekey(deviceKey: String, to newKey: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE gradebook_device_accounts SET device_key = ? WHERE device_key = ?", arguments: [newKey, deviceKey])
    }

    /// Deletes every account of a device (their snapshots go with them).
    func deleteAll(deviceKey: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_device_accounts WHERE device_key = ?", arguments: [deviceKey])
    }

    func count(deviceKey: String, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM gradebook_device_accounts WHERE device_key = ?", arguments: [deviceKey]) ?? 0
    }

    func upsert(deviceKey: String, sourceID: Int64, username: String, at now: Date, in transaction: any StoreTransaction) throws -> (Int64, Bool) {
        let db = try transaction.sqlite()
        if let existing = try find(deviceKey: deviceKey, username: username, in: transaction) {
            try db.execute(sql: "UPDATE gradebook_device_accounts SET source_id = ?, updated_at = ? WHERE id = ?", arguments: [sourceID, now, existing.id])
            return (existing.id, false)
        }
        try db.execute(
            sql: "INSERT INTO gradebook_device_accounts (device_key, source_id, username, sealed_password, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?)",
            arguments: [deviceKey, sourceID, username, now, now]
        )
        return (db.lastInsertedRowID, true)
    }

    func setSealed(id: Int64, sealed: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE gradebook_device_accounts SET sealed_password = ? WHERE id = ?", arguments: [sealed, id])
    }

    func replaceSealed(id: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE gradebook_device_accounts SET sealed_password = ? WHERE id = ? AND sealed_password = ?", arguments: [sealed, id, expected])
        return db.changesCount > 0
    }

    func deleteSealed(id: Int64, expected: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_device_accounts WHERE id = ? AND sealed_password = ?", arguments: [id, expected])
        return db.changesCount > 0
    }

    func row(id: Int64, in transaction: any StoreTransaction) throws -> StoredDeviceAccount? {
        let db = try transaction.sqlite()
        return try GRDB.Row.fetchOne(db, sql: "SELECT * FROM gradebook_device_accounts WHERE id = ?", arguments: [id]).map(Self.row)
    }

    func all(in transaction: any StoreTransaction) throws -> [StoredDeviceAccount] {
        let db = try transaction.sqlite()
        return try GRDB.Row.fetchAll(db, sql: "SELECT * FROM gradebook_device_accounts ORDER BY id").map(Self.row)
    }

    /// Every device account's source poll interval, in seconds.
    func pollIntervals(in transaction: any StoreTransaction) throws -> [Int64: Int] {
        let db = try transaction.sqlite()
        let rows = try GRDB.Row.fetchAll(db, sql: """
            SELECT a.id, s.poll_interval_seconds FROM gradebook_device_accounts a JOIN gradebook_sources s ON s.id = a.source_id
            """)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as Int64, $0[1] as Int) })
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_device_accounts WHERE id = ?", arguments: [id])
    }

    static func row(_ row: GRDB.Row) -> StoredDeviceAccount {
        StoredDeviceAccount(id: row["id"], deviceKey: row["device_key"], sourceID: row["source_id"], username: row["username"], sealedPassword: row["sealed_password"])
    }
}
