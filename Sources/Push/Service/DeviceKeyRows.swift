public import Contracts
public import Storage

/// Devices' sealed keys (webhook secrets, Web Push keys) as the vault's key rotation and audit
/// see them: `gateway vault rotate-key` re-seals them under the new key with the gradebook
/// passwords, replacing each only when unchanged since it was read.
public struct DeviceKeyRows: SealedSecretRows {
    let transactions: any TransactionRunner
    let store: any DeviceKeyStoring

    public init(transactions: any TransactionRunner, store: any DeviceKeyStoring) {
        self.transactions = transactions
        self.store = store
    }

    public func sealedValues() async throws -> [(context: SecretContext, sealed: String)] {
        try await transactions.read { [store] db in try store.sealedKeys(in: db) }
    }

    public func replace(context: SecretContext, expected: String, with sealed: String) async throws -> Bool {
        guard context.table == DeviceKeys.table else { return false }
        return try await transactions.write { [store] db in
            try store.replaceSealedKeys(deviceID: context.rowID, expected: expected, with: sealed, in: db)
        }
    }

    /// Deletes the device (its keys can't be opened: it could never be delivered to again); the
    /// student registers it anew.
    public func forget(context: SecretContext, expected: String) async throws -> Bool {
        guard context.table == DeviceKeys.table else { return false }
        return try await transactions.write { [store] db in
            try store.deleteDevice(id: context.rowID, sealedKeys: expected, in: db)
        }
    }
}
