public import Contracts
public import Storage

extension VaultKeyProvider: SecretSealer {}

/// The stored gradebook passwords as the vault's rotation sees them: every sealed value with
/// its row, replaced only when unchanged since it was read.
public struct GradebookAccountVaultRows: VaultRows {
    let transactions: any TransactionRunner
    let store: any GradebookAccountStoring

    public init(transactions: any TransactionRunner, store: any GradebookAccountStoring) {
        self.transactions = transactions
        self.store = store
    }

    public func sealedValues() async throws -> [(context: VaultContext, sealed: String)] {
        try await transactions.read { [store] db in
            try store.all(in: db).filter { !$0.sealedPassword.isEmpty }.map {
                (GradebookAccountService.context(rowID: $0.id, accountID: $0.accountID), $0.sealedPassword)
            }
        }
    }

    public func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool {
        try await transactions.write { [store] db in
            try store.replaceSealedPassword(id: context.rowID, expected: expected, with: sealed, in: db)
        }
    }

    public func forget(context: VaultContext, expected: String) async throws -> Bool {
        try await transactions.write { [store] db in try store.deleteSealed(id: context.rowID, expected: expected, in: db) }
    }
}

/// The sealed OAuth client secrets of gradebook sources (`gradebook_sources`), for key rotation.
/// Forgetting one clears the secret (the source stays; its OAuth flow waits for a new secret).
public struct GradebookSourceSecretVaultRows: VaultRows {
    let transactions: any TransactionRunner
    let store: any GradebookSourceStoring

    public init(transactions: any TransactionRunner, store: any GradebookSourceStoring) {
        self.transactions = transactions
        self.store = store
    }

    public func sealedValues() async throws -> [(context: VaultContext, sealed: String)] {
        try await transactions.read { [store] db in
            try store.sealedClientSecrets(in: db).map { (GradebookSourceService.secretContext(sourceID: $0.id), $0.sealed) }
        }
    }

    public func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool {
        try await transactions.write { [store] db in try store.setSealedClientSecret(id: context.rowID, sealed, expected: expected, in: db) }
    }

    public func forget(context: VaultContext, expected: String) async throws -> Bool {
        try await transactions.write { [store] db in try store.setSealedClientSecret(id: context.rowID, nil, expected: expected, in: db) }
    }
}
