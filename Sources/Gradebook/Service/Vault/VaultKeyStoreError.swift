/// Why the vault's keys could not be loaded, written or rotated.
///
/// Descriptions name variables, files, line numbers and modes, never a key or any part of one.
public enum VaultKeyStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `GATEWAY_VAULT_KEY` or `GATEWAY_VAULT_PREVIOUS_KEYS` holds something that is not base64
    /// of 32 bytes. `reason` is a fixed sentence; `entry` is 1-based for the list variable.
    case invalidEnvironmentKey(variable: String, entry: Int?, reason: String)
    /// `GATEWAY_VAULT_PREVIOUS_KEYS` is set without `GATEWAY_VAULT_KEY`.
    case previousKeysWithoutCurrentKey
    /// The key file can be read or written by its group or others.
    case insecureKeyFile(path: String, mode: UInt32)
    /// The key file is not a regular file.
    case notARegularFile(path: String)
    /// The key file's text is not the key file format.
    case malformedKeyFile(path: String, line: Int, reason: String)
    /// A system call on `path` failed.
    case io(path: String, operation: String, errno: Int32)
    /// `rotate-key` needs a key file; the keys come from the environment.
    case rotationNeedsKeyFile
    /// Another `rotate-key` holds the lock beside the key file.
    case rotationInProgress(lockPath: String)
    /// Rows kept changing under the rotation; the old keys were kept.
    case rowsKeepChanging(passes: Int)

    public var description: String {
        switch self {
        case .invalidEnvironmentKey(let variable, let entry, let reason):
            "\(variable)\(entry.map { " (entry \($0))" } ?? "") is not a vault key: \(reason); expected base64 (standard or url-safe) of 32 random bytes, e.g. from `openssl rand -base64 32`"
        case .previousKeysWithoutCurrentKey:
            "GATEWAY_VAULT_PREVIOUS_KEYS is set but GATEWAY_VAULT_KEY is not; set the current key in GATEWAY_VAULT_KEY"
        case .insecureKeyFile(let path, let mode):
            "the vault key file \(path) has mode \(Self.octal(mode)) and can be read or written by group or others; run `chmod 600 \(path)` and start again"
        case .notARegularFile(let path):
            "the vault key file \(path) is not a regular file"
        case .malformedKeyFile(let path, let line, let reason):
            "the vault key file \(path) is malformed\(line > 0 ? " at line \(line)" : ""): \(reason)"
        case .io(let path, let operation, let code):
            "vault key file \(path): \(operation) failed (errno \(code))"
        case .rotationNeedsKeyFile:
            """
            rotate-key rotates the key file, but the vault keys come from GATEWAY_VAULT_KEY. To rotate \
            environment keys: put a new key (`openssl rand -base64 32`) in GATEWAY_VAULT_KEY and the old one \
            in GATEWAY_VAULT_PREVIOUS_KEYS, restart every server, run `gateway vault rotate-key --env` (it \
            re-seals every row under the current key), then remove GATEWAY_VAULT_PREVIOUS_KEYS and restart
            """
        case .rotationInProgress(let lockPath):
            "another vault key rotation is running (it holds \(lockPath)); wait for it to finish"
        case .rowsKeepChanging(let passes):
            "rows kept changing during \(passes) re-encryption passes; the old keys were kept, run rotate-key again"
        }
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
