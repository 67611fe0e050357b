import Auth
import Contracts
import Foundation
import GatewayCore
import Gradebook
import PostgresStores
import SQLiteStores
import Storage
import TestSupport
import Testing

/// Gradebook's stores under test, with Auth's accounts that their rows belong to.
struct GradebookTestStores: Sendable {
    let stores: GradebookStores
    let accounts: any AccountStoring
}

/// The backends every test of ``GradebookStoreConformance`` runs on.
enum GradebookBackend {
    static let all: [StoreBackend<GradebookTestStores>] = [
        .sqlite("gradebook-conformance", modules: [AuthSchema.self, GradebookSchema.self]) { _ in GradebookTestStores(stores: .sqlite(), accounts: SQLiteAccountStore()) },
        .postgres("gradebook", modules: [AuthSchema.self, GradebookSchema.self]) { _ in GradebookTestStores(stores: .postgres(), accounts: PostgresAccountStore()) },
    ]
}

/// The promises Gradebook's stores make, through their protocols only: a sealed password is
/// replaced or deleted only from the value read (so key rotation and a student's change can't
/// overwrite each other), accounts are reached through their owners, and snapshots and source
/// health read back as saved.
@Suite("Gradebook store conformance")
struct GradebookStoreConformance {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let source = GradebookSource(id: 3, name: "Cal Poly", baseURL: URL(string: "https://gradebook.example.edu/grades.json")!)

    static func withStores(_ backend: StoreBackend<GradebookTestStores>, _ body: (any TransactionRunner, GradebookStores, [Int64]) async throws -> Void) async throws {
        try await backend.with { transactions, under in
            let (stores, accounts) = (under.stores, under.accounts)
            let owners = try await transactions.write { tx throws in
                #expect(try stores.sources.upsert(Self.source, at: Self.start, in: tx), "created")
                return try ["ada", "grace"].map { name in
                    try #require(try accounts.insert(Account(username: name, email: nil, passwordHash: "x", role: .student, createdAt: Self.start), in: tx).id)
                }
            }
            try await body(transactions, stores, owners)
        }
    }

    @Test(arguments: GradebookBackend.all)
    func sourcesAreUpsertedAndRead(_ backend: StoreBackend<GradebookTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, _ in
            var changed = Self.source
            changed.name = "Cal Poly SLO"
            changed.pollIntervalSeconds = 60
            let renamed = changed
            try await transactions.write { tx throws in
                #expect(try !stores.sources.upsert(renamed, at: Self.start, in: tx), "updated, not created")
                #expect(try stores.sources.source(id: 3, in: tx) == renamed)
                #expect(try stores.sources.sources(in: tx) == [renamed])
                #expect(try !stores.sources.delete(id: 99, in: tx))
            }
        }
    }

    @Test(arguments: GradebookBackend.all)
    func anAccountKeepsItsCredentialKindAndStatusAndASourceItsSealedClientSecret(_ backend: StoreBackend<GradebookTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, owners in
            try await transactions.write { tx throws in
                let id = try stores.accounts.insert(accountID: owners[0], sourceID: 3, username: "5001", kind: .oauth, at: Self.start, in: tx)
                #expect(try stores.accounts.account(id: id, in: tx)?.credentialKind == .oauth)
                #expect(try stores.accounts.account(id: id, in: tx)?.status == .ok)
                try stores.accounts.setStatus(id: id, .needsStudent, at: Self.start + 1, in: tx)
                #expect(try stores.accounts.accounts(of: owners[0], in: tx).first?.status == .needsStudent)

                var source = try #require(try stores.sources.source(id: 3, in: tx))
                source.oauthClientID = "170000000000001"
                _ = try stores.sources.upsert(source, at: Self.start, in: tx)
                #expect(try stores.sources.source(id: 3, in: tx)?.oauthClientID == "170000000000001")
                #expect(try stores.sources.sealedClientSecret(id: 3, in: tx) == nil)
                #expect(try stores.sources.setSealedClientSecret(id: 3, "v1:secret", expected: nil, in: tx))
                #expect(try !stores.sources.setSealedClientSecret(id: 3, "v2:secret", expected: "stale", in: tx), "only from the value read")
                #expect(try stores.sources.setSealedClientSecret(id: 3, "v2:secret", expected: "v1:secret", in: tx))
                #expect(try stores.sources.sealedClientSecrets(in: tx).map(\.sealed) == ["v2:secret"])
                // Replacing the source's settings keeps its sealed secret.
                _ = try stores.sources.upsert(source, at: Self.start + 2, in: tx)
                #expect(try stores.sources.sealedClientSecret(id: 3, in: tx) == "v2:secret")
                #expect(try !stores.sources.setSealedClientSecret(id: 99, "x", expected: nil, in: tx), "no such source")
            }
        }
    }

    @Test(arguments: GradebookBackend.all)
    func aSealedPasswordChangesOnlyFromTheValueRead(_ backend: StoreBackend<GradebookTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, owners in
            let (ada, grace) = (owners[0], owners[1])
            try await transactions.write { tx throws in
                let id = try stores.accounts.insert(accountID: ada, sourceID: 3, username: "ada01", kind: .password, at: Self.start, in: tx)
                try stores.accounts.setSealedPassword(id: id, sealed: "v1:sealed-a", at: Self.start, in: tx)
                #expect(try !stores.accounts.replaceSealedPassword(id: id, expected: "stale", with: "v2:x", in: tx))
                #expect(try stores.accounts.replaceSealedPassword(id: id, expected: "v1:sealed-a", with: "v2:sealed-a", in: tx))
                #expect(try stores.accounts.account(id: id, of: ada, in: tx)?.sealedPassword == "v2:sealed-a")
                #expect(try stores.accounts.account(id: id, of: grace, in: tx) == nil, "another student's account is not found")
                #expect(try !stores.accounts.delete(id: id, of: grace, in: tx))
                #expect(try stores.accounts.find(accountID: ada, sourceID: 3, username: "ada01", in: tx)?.id == id)
                #expect(try stores.accounts.accounts(ofOwners: [grace, ada], in: tx).map(\.id) == [id])
                #expect(try !stores.accounts.deleteSealed(id: id, expected: "v1:sealed-a", in: tx))
                #expect(try stores.accounts.deleteSealed(id: id, expected: "v2:sealed-a", in: tx))
                #expect(try stores.accounts.all(in: tx).isEmpty)
            }
        }
    }

    @Test(arguments: GradebookBackend.all)
    func deviceAccountsUpsertByDeviceAndUsername(_ backend: StoreBackend<GradebookTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, _ in
            try await transactions.write { tx throws in
                let (id, created) = try stores.deviceAccounts.upsert(deviceKey: "device-1", sourceID: 3, username: "ada01", at: Self.start, in: tx)
                let (again, createdAgain) = try stores.deviceAccounts.upsert(deviceKey: "device-1", sourceID: 3, username: "ada01", at: Self.start, in: tx)
                #expect(created && !createdAgain && again == id)
                #expect(try stores.deviceAccounts.count(deviceKey: "device-1", in: tx) == 1)
                #expect(try stores.deviceAccounts.pollIntervals(in: tx) == [id: Self.source.pollIntervalSeconds])
                try stores.deviceAccounts.rekey(deviceKey: "device-1", to: "device-2", in: tx)
                #expect(try stores.deviceAccounts.find(deviceKey: "device-2", username: "ada01", in: tx)?.id == id)
                try stores.deviceAccounts.deleteAll(deviceKey: "device-2", in: tx)
                #expect(try stores.deviceAccounts.all(in: tx).isEmpty)
            }
        }
    }

    @Test(arguments: GradebookBackend.all)
    func snapshotsAndHealthReadBackAsSaved(_ backend: StoreBackend<GradebookTestStores>) async throws {
        try await Self.withStores(backend) { transactions, stores, owners in
            let snapshot = try JSONDecoder().decode(GradebookSnapshot.self, from: Data("""
                {"assignments": [{"key": "a1", "name": "Lab 1", "course": "CSC 101"}],
                 "scores": [{"key": "s1", "assignmentKey": "a1", "displayScore": "9/10", "counts": true, "contentHash": "h"}]}
                """.utf8))
            let health = SourceHealth(sourceID: 3, consecutiveFailures: 2, lastFailureAt: Self.start, lastError: "HTTP 500", backoffUntil: Self.start + 60, polls: 7, failures: 2)
            try await transactions.write { tx throws in
                let account = try stores.accounts.insert(accountID: owners[0], sourceID: 3, username: "ada01", kind: .password, at: Self.start, in: tx)
                try stores.snapshots.save(snapshot, gradebookAccountID: account, at: Self.start, in: tx)
                #expect(try stores.snapshots.snapshot(gradebookAccountID: account, in: tx) == snapshot)
                let (device, _) = try stores.deviceAccounts.upsert(deviceKey: "d", sourceID: 3, username: "u", at: Self.start, in: tx)
                try stores.snapshots.save(snapshot, deviceAccountID: device, student: "1", at: Self.start + 100, in: tx)
                #expect(try stores.snapshots.snapshot(deviceAccountID: device, student: "1", in: tx) == snapshot)
                #expect(try stores.snapshots.prune(polledBefore: Self.start + 50, in: tx) == 1, "only the older snapshot goes")

                #expect(try stores.sourceHealth.health(sourceID: 3, in: tx) == SourceHealth(sourceID: 3), "never polled")
                try stores.sourceHealth.save(health, in: tx)
                #expect(try stores.sourceHealth.health(sourceID: 3, in: tx) == health)
                #expect(try stores.sourceHealth.all(in: tx) == [3: health])
            }
        }
    }
}
