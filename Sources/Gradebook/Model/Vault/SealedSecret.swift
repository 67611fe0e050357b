import Foundation

/// The text form of a sealed value: `v1.<keyId>.<base64url(nonce | ciphertext | tag)>`.
///
/// `keyId` is the sealing key's id (16 hex digits); the box is AES-256-GCM's combined form, a
/// 12-byte random nonce, the ciphertext, and the 16-byte tag, in unpadded base64url. The text
/// carries no plaintext and no key material, so `description` may show the key id and length.
public struct SealedSecret: Sendable, Hashable, CustomStringConvertible {
    /// The format version, the text's first field.
    public static let version = "v1"
    static let nonceBytes = 12
    static let tagBytes = 16

    /// The id of the key the value was sealed under.
    public let keyID: String
    /// nonce | ciphertext | tag.
    let box: Data

    init(keyID: String, box: Data) {
        self.keyID = keyID
        self.box = box
    }

    /// Parses the text form strictly (canonical base64url, a box at least nonce + tag long).
    /// - Throws: `VaultError.malformed`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.version, VaultKey.isWellFormedID(parts[1]),
              let box = VaultBase64.urlDecodeCanonical(parts[2]),
              box.count >= Self.nonceBytes + Self.tagBytes
        else { throw VaultError.malformed }
        self.init(keyID: String(parts[1]), box: box)
    }

    /// The text form stored in the owning row.
    public var text: String { "\(Self.version).\(keyID).\(VaultBase64.urlEncode(box))" }

    public var description: String { "SealedSecret(keyID: \(keyID), bytes: \(box.count))" }
}
