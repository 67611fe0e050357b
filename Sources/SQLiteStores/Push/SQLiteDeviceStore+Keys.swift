import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

/// The sealed keys of `push_devices` (``DeviceKeys``): sealing on write, opening on read,
/// sealing rows written in clear before `push.008`, and the compare-and-swap key rotation uses.
extension SQLiteDeviceStore: DeviceKeySealing {
    typealias KeysRead = DeviceKeysRead

    func keys(of row: Row) -> KeysRead {
        guard let sealed: String = row["sealed_keys"] else {
            // Written in clear before push.008; sealed at the next start (sealClearKeys).
            return .opened(DeviceKeys(webhookSecret: row["webhook_secret"], p256dh: row["p256dh"], auth: row["auth_secret"]))
        }
        guard let sealer,
              let plaintext = try? sealer.open(sealed, context: DeviceKeys.context(deviceID: row["id"], accountID: row["account_id"])),
              let keys = try? DeviceKeys(plaintext: plaintext) else { return .unavailable }
        return .opened(keys)
    }

    /// Seals the keys of every row still holding them in clear (written before `push.008`, or
    /// by an older server during an upgrade) and clears those columns; returns how many rows
    /// held clear keys. Running it again finds nothing: it is what the server does at every start.
    func sealClearKeys(in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, account_id, sealed_keys, webhook_secret, p256dh, auth_secret FROM push_devices
            WHERE webhook_secret IS NOT NULL OR p256dh IS NOT NULL OR auth_secret IS NOT NULL
            """)
        for row in rows {
            let id: Int64 = row["id"]
            if row["sealed_keys"] as String? == nil {
                let keys = DeviceKeys(webhookSecret: row["webhook_secret"], p256dh: row["p256dh"], auth: row["auth_secret"])
                try db.execute(
                    sql: "UPDATE push_devices SET sealed_keys = ? WHERE id = ? AND sealed_keys IS NULL",
                    arguments: [try seal(keys, deviceID: id, accountID: row["account_id"]), id]
                )
            }
            // Sealed keys win over clear ones a server from before push.008 may have written.
            try db.execute(sql: "UPDATE push_devices SET webhook_secret = NULL, p256dh = NULL, auth_secret = NULL WHERE id = ?", arguments: [id])
        }
        return rows.count
    }

    /// Checkpoints the write-ahead log into the database and truncates it, so the old pages it
    /// held (clear keys) are gone. A reader's snapshot (the checkpointer, a start-up read) makes
    /// the checkpoint answer busy for a moment: it is tried again for up to 2 s rather than given
    /// up at once, which left the clear bytes in the log now and then.
    static func truncateLog(_ db: Database) {
        for _ in 0..<200 {
            if let result = try? db.checkpoint(.truncate), result.walFrameCount == result.checkpointedFrameCount { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// ``sealClearKeys(in:)`` in its own transaction with SQLite's `secure_delete` on, so the
    /// clear bytes are zeroed in the pages rather than left in their free space, then a
    /// checkpoint that truncates the write-ahead log (which held the old pages). What the
    /// server runs at start, before it serves.
    func sealClearKeys(database: GatewayDatabase) throws -> Int {
        try database.pool.writeWithoutTransaction { db in
            let previous = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = \(previous == 0 ? "OFF" : "ON")") }
            var sealed = 0
            try db.inTransaction(.immediate) {
                sealed = try sealClearKeys(in: db)
                return .commit
            }
            if sealed > 0 { Self.truncateLog(db) }
            return sealed
        }
    }

    /// Every row's sealed keys, for key rotation.
    func sealedKeys(in transaction: any StoreTransaction) throws -> [(context: SecretContext, sealed: String)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT id, account_id, sealed_keys FROM push_devices WHERE sealed_keys IS NOT NULL ORDER BY id").map {
            (DeviceKeys.context(deviceID: $0["id"], accountID: $0["account_id"]), $0["sealed_keys"])
        }
    }

    /// Deletes a device whose sealed keys still equal `sealedKeys` (keys no vault key opens).
    func deleteDevice(id: Int64, sealedKeys: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM push_devices WHERE id = ? AND sealed_keys = ?", arguments: [id, sealedKeys])
        return db.changesCount > 0
    }

    /// Replaces a row's sealed keys if they still equal `expected` (rotation's compare-and-swap).
    func replaceSealedKeys(deviceID: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "UPDATE push_devices SET sealed_keys = ? WHERE id = ? AND sealed_keys = ?", arguments: [sealed, deviceID, expected]
        )
        return db.changesCount > 0
    }
}
