/// `gateway vault rotate-key`: a new key, every row re-sealed under it, the old keys dropped,
/// while servers keep running.
///
/// With a key file (`rotateKey`), under an exclusive lock (`<key file>.lock`):
/// 1. a new key is generated and the file rewritten atomically as new key, then every old key.
///    Running servers (`VaultKeyProvider`) notice the changed file when they next seal and seal
///    under the new key; they re-read it when they meet the new key id while opening.
/// 2. after `settle` (for seals begun before step 1 to land), every row not under the new key is
///    opened and re-sealed under it with a compare-and-swap; a row that changed meanwhile is read
///    again in the next pass. Passes repeat until one finds nothing to re-seal (at most
///    `maxPasses`), so values written during a pass are caught by the next one.
/// 3. the file is rewritten with only the new key.
/// Interrupted at any point, nothing is lost: the file still holds every key a row may use, and
/// running rotate-key again finishes the job (under yet another key).
///
/// With environment keys the file step is impossible (`rotateKey` refuses, explaining how);
/// `resealUnderCurrentKey` does step 2 alone under the environment's current key.
public struct VaultRotation: Sendable {
    /// The pause between publishing the new key and the first scan.
    public var settle: Duration
    /// Scans before giving up on rows that keep changing (the old keys are then kept).
    public var maxPasses: Int
    /// Keep the old keys in the file when some rows cannot be opened (the default): a row the
    /// store reports under a wrong context may still open once that is fixed.
    public var keepKeysForUnreadableRows: Bool

    public init(settle: Duration = .seconds(2), maxPasses: Int = 10, keepKeysForUnreadableRows: Bool = true) {
        self.settle = settle
        self.maxPasses = maxPasses
        self.keepKeysForUnreadableRows = keepKeysForUnreadableRows
    }

    /// Rotates the key file's key; refuses environment keys with `VaultKeyStoreError.rotationNeedsKeyFile`.
    public func rotateKey(source: VaultKeySource, rows: [any VaultRows]) async throws -> VaultRotationReport {
        guard case .file(let keyFile) = source else { throw VaultKeyStoreError.rotationNeedsKeyFile }
        return try await rotateKey(keyFile: keyFile, rows: rows)
    }

    /// Steps 1–3 above on `keyFile` (created first if absent).
    public func rotateKey(keyFile: VaultKeyFile, rows: [any VaultRows]) async throws -> VaultRotationReport {
        let lock = try Self.lock(keyFile)
        defer { VaultPOSIX.unlock(lock) }
        let old = try keyFile.loadOrCreate()
        let newKey = VaultKey.generate()
        let ring = VaultKeyRing(current: newKey, previous: old.keys)
        try keyFile.write(ring)
        if settle > .zero { try await Task.sleep(for: settle) }
        var report = try await reseal(rows: rows, ring: ring)
        if report.unreadable.isEmpty || !keepKeysForUnreadableRows {
            try keyFile.write(VaultKeyRing(current: newKey))
            report.removedKeyIDs = old.keys.map(\.id)
        } else {
            report.keptKeyIDs = old.keys.map(\.id)
        }
        return report
    }

    /// Step 2 alone: re-seals every row not under the source's current key, opening with any key
    /// of its ring, and leaves the keys as they are (`gateway vault rotate-key --env`). With
    /// environment keys, remove `GATEWAY_VAULT_PREVIOUS_KEYS` afterwards if no row is unreadable.
    public func resealUnderCurrentKey(source: VaultKeySource, rows: [any VaultRows]) async throws -> VaultRotationReport {
        switch source {
        case .environment(let ring):
            return try await reseal(rows: rows, ring: ring)
        case .file(let keyFile):
            let lock = try Self.lock(keyFile)
            defer { VaultPOSIX.unlock(lock) }
            return try await reseal(rows: rows, ring: keyFile.read())
        }
    }

    func reseal(rows: [any VaultRows], ring: VaultKeyRing) async throws -> VaultRotationReport {
        var report = VaultRotationReport(keyID: ring.current.id)
        for pass in 1...max(1, maxPasses) {
            report.passes = pass
            var found = 0
            var unreadable: [VaultContext] = []
            for table in rows {
                for (context, sealed) in try await table.sealedValues() {
                    if (try? SealedSecret(parsing: sealed))?.keyID == ring.current.id {
                        if pass == 1 { report.alreadyCurrent += 1 }
                        continue
                    }
                    let plaintext: String
                    do { plaintext = try ring.open(sealed, context: context) } catch {
                        unreadable.append(context)
                        continue
                    }
                    found += 1
                    let resealed = try ring.seal(plaintext, context: context)
                    if try await table.replace(context: context, expected: sealed, with: resealed) {
                        report.reEncrypted += 1
                    } else {
                        report.conflicts += 1
                    }
                }
            }
            report.unreadable = unreadable
            if found == 0 { return report }
        }
        throw VaultKeyStoreError.rowsKeepChanging(passes: maxPasses)
    }

    private static func lock(_ keyFile: VaultKeyFile) throws -> Int32 {
        guard let fd = try VaultPOSIX.tryLock(keyFile.lockPath) else {
            throw VaultKeyStoreError.rotationInProgress(lockPath: keyFile.lockPath)
        }
        return fd
    }
}
