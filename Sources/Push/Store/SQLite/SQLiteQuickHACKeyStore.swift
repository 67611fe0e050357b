public import Contracts
public import Foundation
import GRDB
import Storage

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
