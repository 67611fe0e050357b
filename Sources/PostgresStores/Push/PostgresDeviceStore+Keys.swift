import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// The sealed keys of `push_devices` on PostgreSQL (``DeviceKeys``): sealing on write, opening
/// on read, and the compare-and-swap key rotation uses. Keys are only ever sealed here: the
/// schema has no clear-key columns (``PushSchema``'s PostgreSQL migration).
extension PostgresDeviceStore: DeviceKeySealing {
    typealias KeysRead = DeviceKeysRead

    /// The keys sealed in a row. A row without sealed keys has none (its device then reads as
    /// unusable when its channel needs keys, as a SQLite row with empty clear columns does).
    func keys(sealed: String?, deviceID: Int64, accountID: Int64?) -> KeysRead {
        guard let sealed else { return .opened(DeviceKeys()) }
        guard let sealer,
              let plaintext = try? sealer.open(sealed, context: DeviceKeys.context(deviceID: deviceID, accountID: accountID)),
              let keys = try? DeviceKeys(plaintext: plaintext) else { return .unavailable }
        return .opened(keys)
    }

    /// Nothing to do on PostgreSQL, always 0: device keys are sealed when they are written and
    /// the schema has no clear-key columns to hold them otherwise (SQLite keeps those for rows
    /// written before `push.008`; no PostgreSQL database ever had such rows).
    func sealClearKeys(in transaction: any StoreTransaction) throws -> Int {
        _ = try transaction.postgres()
        return 0
    }

    /// Every row's sealed keys, for key rotation.
    func sealedKeys(in transaction: any StoreTransaction) throws -> [(context: SecretContext, sealed: String)] {
        try transaction.postgres().query(
            "SELECT id, account_id, sealed_keys FROM push_devices WHERE sealed_keys IS NOT NULL ORDER BY id"
        ).map { row in
            let (id, accountID, sealed) = try row.decode((Int64, Int64?, String).self)
            return (DeviceKeys.context(deviceID: id, accountID: accountID), sealed)
        }
    }

    /// Deletes a device whose sealed keys still equal `sealedKeys` (keys no vault key opens).
    func deleteDevice(id: Int64, sealedKeys: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM push_devices WHERE id = \(id) AND sealed_keys = \(sealedKeys)") > 0
    }

    /// Replaces a row's sealed keys if they still equal `expected` (rotation's compare-and-swap).
    func replaceSealedKeys(deviceID: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "UPDATE push_devices SET sealed_keys = \(sealed) WHERE id = \(deviceID) AND sealed_keys = \(expected)"
        ) > 0
    }
}
