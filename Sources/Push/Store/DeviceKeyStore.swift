public import Contracts
public import Storage

/// Devices' sealed keys (webhook secrets, Web Push keys) as the vault's key rotation sees them
/// (``SQLiteDeviceStore`` on SQLite): every sealed value with its row, and compare-and-swap
/// replacement, so a row changed since it was read is left for the next run.
public protocol DeviceKeyStoring: Sendable {
    /// Seals the keys of every row still holding them in clear; how many rows did.
    func sealClearKeys(in transaction: any StoreTransaction) throws -> Int
    /// Every row's sealed keys, for key rotation.
    func sealedKeys(in transaction: any StoreTransaction) throws -> [(context: SecretContext, sealed: String)]
    /// Deletes a device whose sealed keys still equal `sealedKeys` (keys no vault key opens).
    func deleteDevice(id: Int64, sealedKeys: String, in transaction: any StoreTransaction) throws -> Bool
    /// Replaces a row's sealed keys if they still equal `expected` (rotation's compare-and-swap).
    func replaceSealedKeys(deviceID: Int64, expected: String, with sealed: String, in transaction: any StoreTransaction) throws -> Bool
}
