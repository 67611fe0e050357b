public import Contracts
public import Foundation
import GRDB
public import Push
import Storage

public struct SQLiteQuickHACKeyStore: QuickHACKeyStoring {
    public init() {}

    public func deviceKeySecret(in transaction: any StoreTransaction) throws -> Data {
        let db = try transaction.sqlite()
        guard let secret = try Data.fetchOne(db, sql: "SELECT value FROM push_secrets WHERE name = ?", arguments: [PushSecretName.quickHACDeviceKey]) else {
            throw MissingSecret(name: PushSecretName.quickHACDeviceKey)
        }
        return secret
    }

    public func rekey(deviceID: Int64, to uuidHash: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET uuid_hash = ? WHERE id = ?", arguments: [uuidHash, deviceID])
    }
}


