import Crypto
public import Foundation

/// A 256-bit AES-GCM key of the credential vault, known by its id.
///
/// The id is the first 16 hex digits of SHA-256 of the key bytes: it tells keys apart in sealed
/// values and key files without revealing anything about the key. The key bytes never appear in
/// `description`, `debugDescription` or a mirror (`dump`): all print `VaultKey(id: …)`.
public struct VaultKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Key length in bytes.
    public static let byteCount = 32

    /// 16 lowercase hex digits.
    public let id: String
    let symmetricKey: SymmetricKey

    /// A key from exactly 32 bytes; nil for any other length.
    public init?(bytes: some ContiguousBytes) {
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == Self.byteCount * 8 else { return nil }
        self.init(key)
    }

    private init(_ key: SymmetricKey) {
        symmetricKey = key
        id = key.withUnsafeBytes { Self.id(ofKeyBytes: $0) }
    }

    /// A fresh key from the system's secure random source.
    public static func generate() -> VaultKey {
        VaultKey(SymmetricKey(size: .bits256))
    }

    /// The id a key with these bytes has.
    static func id(ofKeyBytes bytes: UnsafeRawBufferPointer) -> String {
        let digest = SHA256.hash(data: bytes)
        return digest.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// True for 16 lowercase hex digits, the shape of every key id.
    static func isWellFormedID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// The key bytes in standard base64: only for the key file writer.
    func base64Encoded() -> String {
        symmetricKey.withUnsafeBytes { VaultBase64.standardEncode(Data($0)) }
    }

    public static func == (lhs: VaultKey, rhs: VaultKey) -> Bool { lhs.id == rhs.id }

    public var description: String { "VaultKey(id: \(id))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["id": id], displayStyle: .struct) }
}
