import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

struct SQLiteQuickHACKeyStore: QuickHACKeyStoring {
    init() {}

    func deviceKeySecret(in transaction: any StoreTransaction) throws -> Data {
        let db = try transaction.sqlite()
        guard let secret = try Data.fetchOne(db, sql: "SELECT value FROM push_secrets WHERE name = ?", arguments: [PushSecretName.quickHACDeviceKey]) else {
            throw MissingSecret(name: PushSecretName.quickHACDeviceKey)
        }
        return secret
    }

    func rekey(deviceID: Int64, to uuidHash: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "UPDATE push_devices SET uuid_hash = ? WHERE id = ?", arguments: [uuidHash, deviceID])
    }
}


