import Crypto
import Foundation

/// The keys the vault knows: `current` seals, every key (current first, then `previous`) opens.
public struct VaultKeyRing: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The key new values are sealed under.
    public let current: VaultKey
    /// Older keys, kept to open values sealed before a rotation. Never holds `current` or duplicates.
    public let previous: [VaultKey]

    public init(current: VaultKey, previous: [VaultKey] = []) {
        self.current = current
        var seen: Set<String> = [current.id]
        self.previous = previous.filter { seen.insert($0.id).inserted }
    }

    /// `current`, then `previous`.
    public var keys: [VaultKey] { [current] + previous }

    /// The key with this id, if the ring holds it.
    public func key(id: String) -> VaultKey? { keys.first { $0.id == id } }

    /// Seals `plaintext` under `current` for the row `context` names.
    /// - Returns: the text form, `v1.<keyId>.<base64url>`.
    /// - Throws: `VaultError.cannotSeal` (not expected).
    public func seal(_ plaintext: String, context: VaultContext) throws -> String {
        let key = current
        do {
            let sealed = try AES.GCM.seal(Data(plaintext.utf8), using: key.symmetricKey, nonce: AES.GCM.Nonce(),
                                          authenticating: context.associatedData(keyID: key.id))
            guard let combined = sealed.combined else { throw VaultError.cannotSeal }
            return SealedSecret(keyID: key.id, box: combined).text
        } catch {
            throw VaultError.cannotSeal
        }
    }

    /// Opens a value sealed by `seal` for the same `context`.
    /// - Throws: `VaultError.malformed` (not a sealed value), `.unknownKey(id:)` (its key is not
    ///   in this ring), `.cannotOpen` (wrong row, wrong key, tampered). Never anything else.
    public func open(_ sealed: String, context: VaultContext) throws -> String {
        let secret = try SealedSecret(parsing: sealed)
        guard let key = key(id: secret.keyID) else { throw VaultError.unknownKey(id: secret.keyID) }
        let box: AES.GCM.SealedBox
        do { box = try AES.GCM.SealedBox(combined: secret.box) } catch { throw VaultError.malformed }
        let bytes: Data
        do {
            bytes = try AES.GCM.open(box, using: key.symmetricKey, authenticating: context.associatedData(keyID: key.id))
        } catch {
            throw VaultError.cannotOpen
        }
        guard let plaintext = String(validating: bytes, as: UTF8.self) else { throw VaultError.cannotOpen }
        return plaintext
    }

    public var description: String {
        "VaultKeyRing(current: \(current.id), previous: [\(previous.map(\.id).joined(separator: ", "))])"
    }
    public var customMirror: Mirror {
        Mirror(self, children: ["current": current.id, "previous": previous.map(\.id)], displayStyle: .struct)
    }
}
