/// Why a sealed value could not be sealed or opened.
///
/// Every description is a fixed sentence (plus, for `unknownKey`, the 16-hex-digit key id, which
/// is a truncated SHA-256 of the key and reveals nothing about it): no plaintext, no key bytes and
/// no ciphertext ever appear in it, so these errors can be logged and returned as they are.
public enum VaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a `v1.<keyId>.<base64url>` sealed value (or its box is too short).
    case malformed
    /// The value was sealed under a key this ring does not hold.
    case unknownKey(id: String)
    /// Authentication failed: the wrong key, the wrong row (context), or a tampered value.
    case cannotOpen
    /// AES-GCM refused to seal (not expected in practice).
    case cannotSeal

    public var description: String {
        switch self {
        case .malformed:
            "vault: the sealed value is malformed"
        case .unknownKey(let id):
            "vault: the value was sealed under key \(id), which is not in the key ring (restore that key or re-enter the secret)"
        case .cannotOpen:
            "vault: the sealed value cannot be opened (wrong key, value moved to another row, or tampered)"
        case .cannotSeal:
            "vault: the value could not be sealed"
        }
    }
}
