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
