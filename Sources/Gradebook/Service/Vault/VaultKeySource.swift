import Foundation

/// Where the vault's keys come from.
///
/// `GATEWAY_VAULT_KEY` (base64, standard or url-safe, of 32 bytes) wins when set, with
/// `GATEWAY_VAULT_PREVIOUS_KEYS` (comma-separated, same encoding) accepted for opening values
/// sealed before; otherwise the key file beside the database.
public enum VaultKeySource: Sendable, Equatable, CustomStringConvertible {
    /// Keys from the environment, parsed once; they change only with a restart.
    case environment(VaultKeyRing)
    /// Keys from a file, re-read when it changes.
    case file(VaultKeyFile)

    /// The current key's variable.
    public static let keyVariable = "GATEWAY_VAULT_KEY"
    /// The previous keys' variable.
    public static let previousKeysVariable = "GATEWAY_VAULT_PREVIOUS_KEYS"

    /// The environment's keys when `GATEWAY_VAULT_KEY` is set, else the key file: `keyFilePath`
    /// or `<databasePath>.vault-keys`. Only parses: the file is read (or created) by the provider.
    /// - Throws: `VaultKeyStoreError.invalidEnvironmentKey`, `.previousKeysWithoutCurrentKey`.
    public static func resolve(environment: [String: String], databasePath: String, keyFilePath: String? = nil) throws -> VaultKeySource {
        if let ring = try environmentRing(environment) { return .environment(ring) }
        return .file(keyFilePath.map(VaultKeyFile.init(path:)) ?? .beside(databasePath: databasePath))
    }

    /// The ring `GATEWAY_VAULT_KEY` and `GATEWAY_VAULT_PREVIOUS_KEYS` describe; nil when
    /// `GATEWAY_VAULT_KEY` is unset. A set but empty or invalid value is an error, never ignored.
    public static func environmentRing(_ environment: [String: String]) throws -> VaultKeyRing? {
        guard let currentText = environment[keyVariable] else {
            if let previous = environment[previousKeysVariable], !previous.trimmingCharacters(in: .whitespaces).isEmpty {
                throw VaultKeyStoreError.previousKeysWithoutCurrentKey
            }
            return nil
        }
        let current = try parseKey(currentText, variable: keyVariable, entry: nil)
        let previous = try (environment[previousKeysVariable] ?? "")
            .split(separator: ",", omittingEmptySubsequences: false)
            .enumerated()
            .compactMap { index, text -> VaultKey? in
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                // Tolerate a trailing comma or an empty variable, nothing else.
                if trimmed.isEmpty { return nil }
                return try parseKey(trimmed, variable: previousKeysVariable, entry: index + 1)
            }
        return VaultKeyRing(current: current, previous: previous)
    }

    private static func parseKey(_ text: String, variable: String, entry: Int?) throws -> VaultKey {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw VaultKeyStoreError.invalidEnvironmentKey(variable: variable, entry: entry, reason: "it is empty")
        }
        guard let bytes = VaultBase64.decodeLenient(text) else {
            throw VaultKeyStoreError.invalidEnvironmentKey(variable: variable, entry: entry, reason: "it is not base64")
        }
        guard let key = VaultKey(bytes: bytes) else {
            throw VaultKeyStoreError.invalidEnvironmentKey(
                variable: variable, entry: entry, reason: "it decodes to \(bytes.count) bytes, not \(VaultKey.byteCount)")
        }
        return key
    }

    public var description: String {
        switch self {
        case .environment(let ring): "environment \(ring)"
        case .file(let file): "file \(file.path)"
        }
    }
}
