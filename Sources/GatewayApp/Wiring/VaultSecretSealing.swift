public import Contracts
public import Gradebook

/// The credential vault (Gradebook's ``VaultKeyProvider``) as other modules see it
/// (``SecretSealing``): the same keys, format and rotation as gradebook passwords, each value
/// bound to its row through a ``VaultContext`` built from the ``SecretContext``.
public struct VaultSecretSealing: SecretSealing {
    let vault: VaultKeyProvider

    public init(vault: VaultKeyProvider) {
        self.vault = vault
    }

    public func seal(_ plaintext: String, context: SecretContext) throws -> String {
        try vault.seal(plaintext, context: Self.context(context))
    }

    public func open(_ sealed: String, context: SecretContext) throws -> String {
        try vault.open(sealed, context: Self.context(context))
    }

    static func context(_ context: SecretContext) -> VaultContext {
        VaultContext(table: context.table, rowID: context.rowID, owner: context.owner)
    }
}

/// Another module's sealed values (``SealedSecretRows``) as the vault's rotation and audit walk
/// them (``VaultRows``): `gateway vault rotate-key` re-seals them with the gradebook passwords,
/// the start-up audit counts those no key opens, `gateway vault forget-unreadable` deletes them.
public struct SealedSecretVaultRows: VaultRows {
    let rows: any SealedSecretRows

    public init(_ rows: any SealedSecretRows) {
        self.rows = rows
    }

    public func sealedValues() async throws -> [(context: VaultContext, sealed: String)] {
        try await rows.sealedValues().map { (VaultSecretSealing.context($0.context), $0.sealed) }
    }

    public func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool {
        try await rows.replace(context: Self.context(context), expected: expected, with: sealed)
    }

    public func forget(context: VaultContext, expected: String) async throws -> Bool {
        try await rows.forget(context: Self.context(context), expected: expected)
    }

    static func context(_ context: VaultContext) -> SecretContext {
        SecretContext(table: context.table, rowID: context.rowID, owner: context.owner)
    }
}
