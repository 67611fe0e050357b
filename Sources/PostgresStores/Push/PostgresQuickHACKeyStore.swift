import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// The QuickHAC device key's secret and device re-keying on PostgreSQL. The secret is the
/// `push_secrets` row the migration made from the server's strong random source (see
/// ``PushSchema``'s PostgreSQL migration): the same for every instance, and readable in any
/// transaction, the read-only one at start-up included.
struct PostgresQuickHACKeyStore: QuickHACKeyStoring {
    init() {}

    func deviceKeySecret(in transaction: any StoreTransaction) throws -> Data {
        guard let row = try transaction.postgres().query("SELECT value FROM push_secrets WHERE name = 'quickhac-device-key'").first else {
            throw MissingSecret(name: PushSecretName.quickHACDeviceKey)
        }
        return try row.decode(Data.self)
    }

    func rekey(deviceID: Int64, to uuidHash: String, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE push_devices SET uuid_hash = \(uuidHash) WHERE id = \(deviceID)")
    }
}
