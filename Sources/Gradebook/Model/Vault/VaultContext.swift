import Foundation

/// The row a sealed value belongs to. Its canonical text is the value's associated data, so a
/// ciphertext copied into another row (or handed to another owner) fails to open.
///
/// The canonical text is `<table>/<rowID>/<owner>` (`gradebook_accounts/12/5`); the two numbers
/// never contain `/`, so the encoding is unambiguous whatever the table name. Changing any of the
/// three (moving a row to another owner, for example) means opening and sealing the value again.
public struct VaultContext: Sendable, Hashable, CustomStringConvertible {
    /// The owning table (`gradebook_accounts`).
    public let table: String
    /// The owning row's primary key.
    public let rowID: Int64
    /// The account the row belongs to.
    public let owner: Int64

    public init(table: String, rowID: Int64, owner: Int64) {
        self.table = table
        self.rowID = rowID
        self.owner = owner
    }

    /// `<table>/<rowID>/<owner>`.
    public var canonical: String { "\(table)/\(rowID)/\(owner)" }

    public var description: String { canonical }

    /// The AES-GCM associated data for a value sealed under `keyID`: the sealed text's header
    /// (`v1.<keyId>.`) followed by the canonical context, so neither can be swapped.
    func associatedData(keyID: String) -> Data {
        Data("\(SealedSecret.version).\(keyID).\(canonical)".utf8)
    }
}
