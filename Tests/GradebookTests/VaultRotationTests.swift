import Foundation
import Gradebook
import Testing

/// `rotate-key`: every row re-sealed under a new key, the old key gone from the file, running
/// providers still opening everything, concurrent changes kept.
@Suite struct VaultRotationTests {
    static func context(_ row: Int64) -> VaultContext {
        VaultContext(table: "gradebook_accounts", rowID: row, owner: 100 + row)
    }

    static func keyID(_ sealed: String?) -> String? {
        sealed.flatMap { try? SealedSecret(parsing: $0).keyID }
    }

    let rotation = VaultRotation(settle: .zero)

    @Test func rotationReSealsEveryRowAndDropsTheOldKey() async throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("gateway.sqlite.vault-keys"))
        let server = try VaultKeyProvider(source: .file(file))
        let old = server.ring.current
        var initial: [VaultContext: String] = [:]
        for row in Int64(1)...5 { initial[Self.context(row)] = try server.seal("password \(row)", context: Self.context(row)) }
        let rows = InMemoryVaultRows(initial)

        let report = try await rotation.rotateKey(source: .file(file), rows: [rows])

        #expect(report.reEncrypted == 5 && report.alreadyCurrent == 0 && report.conflicts == 0)
        #expect(report.unreadable.isEmpty && report.removedKeyIDs == [old.id] && report.passes == 2)
        let new = try file.read()
        #expect(new.previous.isEmpty && new.current.id == report.keyID && new.current != old)
        let text = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(!text.contains(old.id) && text.split(separator: "\n").count == 1)
        #expect(VaultKeyStoreTests.mode(file.path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            == ["gateway.sqlite.vault-keys", "gateway.sqlite.vault-keys.lock"])

        // The server made before the rotation opens every row (it re-reads on the unknown id)
        // and seals under the new key from then on.
        let after = await rows.rows
        for row in Int64(1)...5 {
            #expect(Self.keyID(after[Self.context(row)]) == new.current.id)
            #expect(try server.open(#require(after[Self.context(row)]), context: Self.context(row)) == "password \(row)")
        }
        #expect(server.ring == new)
        #expect(try server.current == new.current)
        // The old values no longer open anywhere: their key is gone.
        #expect(throws: VaultError.unknownKey(id: old.id)) {
            try server.open(initial[Self.context(1)]!, context: Self.context(1))
        }
        // A second rotation over the rotated rows works the same way.
        let again = try await rotation.rotateKey(keyFile: file, rows: [rows])
        #expect(again.reEncrypted == 5 && again.removedKeyIDs == [new.current.id])
    }

    @Test func aRowChangedDuringRotationIsReadAgainNotOverwritten() async throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let staleServer = try file.loadOrCreate()  // a server that has not reloaded: seals under the old key
        let changedRow = Self.context(2)
        let changed = try staleServer.seal("changed meanwhile", context: changedRow)
        let insertedRow = Self.context(9)
        let inserted = try staleServer.seal("added meanwhile", context: insertedRow)
        var initial: [VaultContext: String] = [:]
        for row in Int64(1)...3 { initial[Self.context(row)] = try staleServer.seal("password \(row)", context: Self.context(row)) }
        let rows = InMemoryVaultRows(initial, insertDuringRotation: [insertedRow: inserted]) { context, call in
            context == changedRow && call <= 2 ? changed : nil
        }

        let report = try await rotation.rotateKey(keyFile: file, rows: [rows])

        #expect(report.conflicts == 1)
        #expect(report.reEncrypted == 4)  // rows 1, 3, then 2 and 9 in the second pass
        #expect(report.passes == 3 && report.removedKeyIDs == [staleServer.current.id])
        let ring = try file.read()
        let after = await rows.rows
        #expect(after.count == 4)
        for (context, sealed) in after { #expect(Self.keyID(sealed) == ring.current.id, "\(context)") }
        #expect(try ring.open(#require(after[changedRow]), context: changedRow) == "changed meanwhile")
        #expect(try ring.open(#require(after[insertedRow]), context: insertedRow) == "added meanwhile")
        #expect(try ring.open(#require(after[Self.context(1)]), context: Self.context(1)) == "password 1")
    }

    @Test func rowsThatKeepChangingStopTheRotationWithEveryKeyKept() async throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let old = try file.loadOrCreate()
        let row = Self.context(1)
        let values = try (0..<20).map { try old.seal("value \($0)", context: row) }
        let rows = InMemoryVaultRows([row: values[0]]) { _, call in values[call % values.count] }

        await #expect(throws: VaultKeyStoreError.rowsKeepChanging(passes: 3)) {
            try await VaultRotation(settle: .zero, maxPasses: 3).rotateKey(keyFile: file, rows: [rows])
        }
        let ring = try file.read()
        #expect(ring.previous == [old.current])
        let value = try #require(await rows.rows[row])
        #expect(try ring.open(value, context: row).hasPrefix("value "))
    }

    @Test func unreadableRowsAreReportedAndKeepTheOldKeys() async throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let old = try file.loadOrCreate()
        let moved = try old.seal("moved", context: Self.context(1))
        let rows = InMemoryVaultRows([
            Self.context(2): moved,  // copied to another row: its context does not match
            Self.context(3): try old.seal("fine", context: Self.context(3)),
        ])
        let report = try await rotation.rotateKey(keyFile: file, rows: [rows])
        #expect(report.unreadable == [Self.context(2)] && report.reEncrypted == 1)
        #expect(report.keptKeyIDs == [old.current.id] && report.removedKeyIDs.isEmpty)
        #expect(report.description.contains("gradebook_accounts/2/102") && !report.description.contains("moved"))
        #expect(try file.read().previous == [old.current])

        let forced = try await VaultRotation(settle: .zero, keepKeysForUnreadableRows: false).rotateKey(keyFile: file, rows: [rows])
        #expect(forced.unreadable == [Self.context(2)])
        #expect(try file.read().previous.isEmpty)
    }

    /// Rows whose first scan starts a second rotation of the same key file.
    actor NestedRotationRows: VaultRows {
        let file: VaultKeyFile
        var nestedError: (any Error)?
        var scans = 0

        init(file: VaultKeyFile) { self.file = file }

        func sealedValues() async throws -> [(context: VaultContext, sealed: String)] {
            scans += 1
            if scans == 1 {
                do {
                    _ = try await VaultRotation(settle: .zero).rotateKey(keyFile: file, rows: [])
                } catch {
                    nestedError = error
                }
            }
            return []
        }

        func replace(context: VaultContext, expected: String, with sealed: String) async throws -> Bool { false }
        func forget(context: VaultContext, expected: String) async throws -> Bool { false }
    }

    @Test func twoRotationsNeverRunAtOnce() async throws {
        let directory = try VaultTemporaryDirectory()
        defer { directory.remove() }
        let file = VaultKeyFile(path: directory.file("keys"))
        let rows = NestedRotationRows(file: file)
        let report = try await rotation.rotateKey(keyFile: file, rows: [rows])
        let error = try #require(await rows.nestedError as? VaultKeyStoreError)
        #expect(error == .rotationInProgress(lockPath: file.path + ".lock"))
        #expect(try file.read().keys.map(\.id) == [report.keyID])
        // Released afterwards.
        _ = try await rotation.rotateKey(keyFile: file, rows: [])
    }

    @Test func environmentKeysAreRotatedByResealingUnderTheCurrentKey() async throws {
        let old = VaultKey.generate()
        let new = VaultKey.generate()
        let before = VaultKeySource.environment(VaultKeyRing(current: old))
        var initial: [VaultContext: String] = [:]
        for row in Int64(1)...3 { initial[Self.context(row)] = try VaultKeyProvider(source: before).seal("p\(row)", context: Self.context(row)) }
        let rows = InMemoryVaultRows(initial)

        await #expect(throws: VaultKeyStoreError.rotationNeedsKeyFile) {
            try await rotation.rotateKey(source: before, rows: [rows])
        }
        let message = VaultKeyStoreError.rotationNeedsKeyFile.description
        #expect(message.contains("GATEWAY_VAULT_KEY") && message.contains("GATEWAY_VAULT_PREVIOUS_KEYS") && message.contains("--env"))

        let after = VaultKeySource.environment(VaultKeyRing(current: new, previous: [old]))
        let report = try await rotation.resealUnderCurrentKey(source: after, rows: [rows])
        #expect(report.reEncrypted == 3 && report.keyID == new.id && report.removedKeyIDs.isEmpty)
        let onlyNew = VaultKeyRing(current: new)
        for (context, sealed) in await rows.rows {
            #expect(try onlyNew.open(sealed, context: context) == "p\(context.rowID)")
        }
        let twice = try await rotation.resealUnderCurrentKey(source: after, rows: [rows])
        #expect(twice.reEncrypted == 0 && twice.alreadyCurrent == 3 && twice.passes == 1)
    }
}
