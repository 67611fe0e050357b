import Synchronization

/// The vault's keys as the running server holds them: seals under the current key and opens
/// under any key of the ring.
///
/// With a key file it follows `gateway vault rotate-key` run from another process:
/// - opening a value whose key id the ring does not know re-reads the file once before failing
///   (`reload()`), so values re-sealed under a new key open at once;
/// - sealing (`current`) first compares the file's identity (inode, size, modification time) with
///   the version it read and re-reads it when it changed, so once a rotation has written its new
///   key no new value is sealed under the old one.
/// With environment keys the ring never changes; a rotation there needs a restart.
public final class VaultKeyProvider: Sendable {
    private struct State {
        var ring: VaultKeyRing
        var fingerprint: VaultFileFingerprint?
    }

    /// Where the keys come from.
    public let source: VaultKeySource
    private let state: Mutex<State>

    /// Loads the keys; with a key file that does not exist yet, creates it with one fresh key.
    /// - Throws: `VaultKeyStoreError` (insecure or malformed file, I/O).
    public init(source: VaultKeySource) throws {
        self.source = source
        switch source {
        case .environment(let ring):
            state = Mutex(State(ring: ring, fingerprint: nil))
        case .file(let file):
            let (ring, fingerprint) = try file.loadOrCreateWithFingerprint()
            state = Mutex(State(ring: ring, fingerprint: fingerprint))
        }
    }

    /// `VaultKeySource.resolve` then `init(source:)`: what the server does at start.
    public convenience init(environment: [String: String], databasePath: String, keyFilePath: String? = nil) throws {
        try self.init(source: VaultKeySource.resolve(environment: environment, databasePath: databasePath, keyFilePath: keyFilePath))
    }

    /// The ring as last read (no I/O).
    public var ring: VaultKeyRing { state.withLock { $0.ring } }

    /// The key to seal under, after re-reading the key file if it changed since it was read.
    public var current: VaultKey {
        get throws { try freshRing().current }
    }

    /// Re-reads the key file (a no-op for environment keys) and returns the new ring.
    @discardableResult
    public func reload() throws -> VaultKeyRing {
        guard case .file(let file) = source else { return ring }
        let (ring, fingerprint) = try file.readWithFingerprint()
        state.withLock { $0 = State(ring: ring, fingerprint: fingerprint) }
        return ring
    }

    /// Seals under the current key (see `current`). Throws `VaultError` or, when the key file
    /// changed and cannot be read, `VaultKeyStoreError`.
    public func seal(_ plaintext: String, context: VaultContext) throws -> String {
        try freshRing().seal(plaintext, context: context)
    }

    /// Opens a sealed value; an unknown key id re-reads the key file once before failing.
    /// Throws `VaultError` or, when that re-read fails, `VaultKeyStoreError`.
    public func open(_ sealed: String, context: VaultContext) throws -> String {
        do {
            return try ring.open(sealed, context: context)
        } catch VaultError.unknownKey(let id) {
            guard case .file = source else { throw VaultError.unknownKey(id: id) }
            return try reload().open(sealed, context: context)
        }
    }

    private func freshRing() throws -> VaultKeyRing {
        guard case .file(let file) = source else { return ring }
        let (ring, known) = state.withLock { ($0.ring, $0.fingerprint) }
        if try file.fingerprint() == known { return ring }
        return try reload()
    }
}
