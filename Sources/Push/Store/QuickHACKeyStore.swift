public import Contracts
public import Foundation
import Storage

/// Where the QuickHAC device key's secret is kept and how a device moves to a new key,
/// behind a protocol (``SQLiteQuickHACKeyStore``).
public protocol QuickHACKeyStoring: Sendable {
    /// The server secret device keys are made under (made once by the migration).
    func deviceKeySecret(in transaction: any StoreTransaction) throws -> Data
    /// Moves a device from its old key to its new one.
    func rekey(deviceID: Int64, to uuidHash: String, in transaction: any StoreTransaction) throws
}
