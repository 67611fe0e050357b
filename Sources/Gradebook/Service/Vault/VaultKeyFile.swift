#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The vault's key file: `<database path>.vault-keys` unless configured, mode 0600 exactly.
///
/// Format: one key per line, `<keyId> <base64 key>` (standard base64 of 32 bytes), the current
/// key first, then previous keys, a newline after each:
/// ```
/// 3f9c2a7d1e04b8a6 q1Xb...=
/// 71ad0c5e9b2f4d38 Zk3P...=
/// ```
/// It is created on first start with one fresh key (a complete 0600 temporary file, made with
/// `open(O_CREAT | O_EXCL, 0600)`, hard-linked into place) and replaced only atomically
/// (temporary 0600 file in the same directory, fsync, rename, directory fsync). A file that its
/// group or others may read or write is refused, with the `chmod 600` that fixes it.
public struct VaultKeyFile: Sendable, Hashable, CustomStringConvertible {
    /// The suffix added to the database path.
    public static let suffix = ".vault-keys"

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// `<databasePath>.vault-keys`.
    public static func beside(databasePath: String) -> VaultKeyFile {
        VaultKeyFile(path: databasePath + suffix)
    }

    /// The `flock` file that keeps two rotations apart: `<path>.lock`.
    public var lockPath: String { path + ".lock" }

    public var description: String { "VaultKeyFile(\(path))" }

    /// Reads the ring. Throws `VaultKeyStoreError`: `.io` with `ENOENT` when the file is absent,
    /// `.insecureKeyFile`, `.notARegularFile`, `.malformedKeyFile`.
    public func read() throws -> VaultKeyRing {
        try readWithFingerprint().ring
    }

    /// Reads the ring, or on first start (no file) creates the file with one fresh key.
    /// Two processes starting at once agree on one key: the loser of the exclusive create reads
    /// the winner's file.
    public func loadOrCreate() throws -> VaultKeyRing {
        try loadOrCreateWithFingerprint().ring
    }

    /// Replaces the file's keys atomically with `ring` (current first).
    public func write(_ ring: VaultKeyRing) throws {
        try VaultPOSIX.replace(path, contents: Data(VaultKeyFileFormat.render(ring).utf8))
    }

    func readWithFingerprint() throws -> (ring: VaultKeyRing, fingerprint: VaultFileFingerprint) {
        let (data, fingerprint) = try VaultPOSIX.readPrivateFile(path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw VaultKeyStoreError.malformedKeyFile(path: path, line: 0, reason: "the file is not UTF-8 text")
        }
        do throws(VaultKeyFileFormat.Problem) {
            return (try VaultKeyFileFormat.parse(text), fingerprint)
        } catch {
            throw VaultKeyStoreError.malformedKeyFile(path: path, line: error.line, reason: error.reason)
        }
    }

    func loadOrCreateWithFingerprint() throws -> (ring: VaultKeyRing, fingerprint: VaultFileFingerprint) {
        for _ in 0..<3 {
            do {
                return try readWithFingerprint()
            } catch VaultKeyStoreError.io(_, "open", ENOENT) {
                let ring = VaultKeyRing(current: VaultKey.generate())
                _ = try VaultPOSIX.createExclusively(path, contents: Data(VaultKeyFileFormat.render(ring).utf8))
                // Read back whichever file won, ours or a concurrent starter's.
            }
        }
        return try readWithFingerprint()
    }

    func fingerprint() throws -> VaultFileFingerprint {
        try VaultPOSIX.fingerprint(path)
    }
}
