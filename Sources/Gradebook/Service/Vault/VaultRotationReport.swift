/// What a re-encryption did. Contexts and key ids only: no secrets.
public struct VaultRotationReport: Sendable, Equatable, CustomStringConvertible {
    /// The key every readable row is now sealed under.
    public var keyID: String
    /// Rows re-sealed under `keyID` by this run.
    public var reEncrypted = 0
    /// Rows already under `keyID` when first read (skipped).
    public var alreadyCurrent = 0
    /// Compare-and-swaps lost to a concurrent change; those rows were read again and retried.
    public var conflicts = 0
    /// Scans of every row, the last one finding nothing left to re-seal.
    public var passes = 0
    /// Rows that no key of the ring opens (tampered, moved, or sealed under a key long gone).
    public var unreadable: [VaultContext] = []
    /// Keys removed from the key file at the end.
    public var removedKeyIDs: [String] = []
    /// Old keys left in the key file because some rows are unreadable.
    public var keptKeyIDs: [String] = []

    public init(keyID: String) {
        self.keyID = keyID
    }

    public var description: String {
        var text = "vault: \(reEncrypted) rows re-encrypted under key \(keyID), \(alreadyCurrent) already under it, "
            + "\(conflicts) retried after concurrent changes, \(passes) passes"
        if !removedKeyIDs.isEmpty { text += "; removed keys \(removedKeyIDs.joined(separator: ", "))" }
        if !unreadable.isEmpty {
            text += "; \(unreadable.count) rows cannot be opened: \(unreadable.map(\.canonical).joined(separator: ", "))"
        }
        if !keptKeyIDs.isEmpty {
            text += "; kept keys \(keptKeyIDs.joined(separator: ", ")) because of them (fix or delete those rows and rotate again)"
        }
        return text
    }
}
