/// Seals small secrets at rest for a module that keeps them in its own tables (Push: webhook
/// signing secrets, Web Push subscription keys), answered by the credential vault through an
/// adapter the composition root builds. The module never sees a key; the vault never reads the
/// module's tables.
///
/// A sealed value is text (`v1.<keyId>.<base64url>`: AES-256-GCM) that opens only under the
/// ``SecretContext`` it was sealed for, so a value copied into another row does not open.
public protocol SecretSealing: Sendable {
    /// Seals `plaintext` for the row `context` names. Throws when the vault can't seal (its key
    /// file unreadable); never returns the plaintext.
    func seal(_ plaintext: String, context: SecretContext) throws -> String
    /// Opens a value sealed for the same `context`. Throws (without quoting the value) when it
    /// is malformed, sealed under a key the vault no longer holds, tampered with or moved.
    func open(_ sealed: String, context: SecretContext) throws -> String
}

/// The row a sealed value belongs to: its table, primary key and owning account (0 for none).
/// The vault binds each value to it (its associated data), as it does gradebook passwords.
public struct SecretContext: Sendable, Hashable, CustomStringConvertible {
    public var table: String
    public var rowID: Int64
    public var owner: Int64

    public init(table: String, rowID: Int64, owner: Int64) {
        self.table = table
        self.rowID = rowID
        self.owner = owner
    }

    /// `<table>/<rowID>/<owner>`: names the row, never the secret.
    public var description: String { "\(table)/\(rowID)/\(owner)" }
}

/// The sealed values one module keeps, as the vault's key rotation sees them (`gateway vault
/// rotate-key` re-seals every one under the new key). The module implements it for each table
/// holding sealed values.
public protocol SealedSecretRows: Sendable {
    /// Every sealed value with the context it was sealed for, read now.
    func sealedValues() async throws -> [(context: SecretContext, sealed: String)]
    /// Replaces the sealed value of the row `context` names only if it still equals `expected`
    /// (compare-and-swap); false when the row changed or is gone.
    func replace(context: SecretContext, expected: String, with sealed: String) async throws -> Bool
    /// Deletes what the row `context` names holds the value for (a whole device, a whole stored
    /// account) only if its sealed value still equals `expected`: an operator forgets values no
    /// key opens any more.
    func forget(context: SecretContext, expected: String) async throws -> Bool
}
