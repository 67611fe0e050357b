import Auth
import Contracts
import Foundation
import GatewayCore
import PostgresStores
import SQLiteStores
import Storage
import TestSupport
import Testing
import PostgresStorage

/// A backend Auth's store can run on, made fresh for one test. Every backend must pass
/// ``AccountStoreConformance``: SQLite and PostgreSQL, with the same tests.
struct AuthBackend: CustomStringConvertible, Sendable {
    let description: String
    let make: @Sendable () async throws -> (transactions: any TransactionRunner, store: any AccountStoring, cleanUp: @Sendable () async -> Void)

    static let sqlite = AuthBackend(description: "SQLite") {
        let (database, cleanUp) = try TestSQLite.database("auth-conformance", modules: [AuthSchema.self])
        return (database, SQLiteAccountStore(), cleanUp)
    }

    static let postgres = AuthBackend(description: "PostgreSQL") {
        let database = try await TestPostgres.database("auth", modules: [AuthSchema.self])
        return (database, PostgresAccountStore(), { await database.shutdown() })
    }

    static let all: [AuthBackend] = [.sqlite, .postgres]
}

/// The promises Auth's store makes, checked through ``AccountStoring`` only: usernames and
/// emails are unique, a token is live only while unexpired, unrevoked and its account enabled,
/// and revocation and pruning touch exactly the tokens they name.
@Suite("Account store conformance")
struct AccountStoreConformance {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func withStore(_ backend: AuthBackend, _ body: (any TransactionRunner, any AccountStoring) async throws -> Void) async throws {
        let (transactions, store, cleanUp) = try await backend.make()
        do {
            try await body(transactions, store)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    static func account(_ name: String, email: String? = nil, role: Role = .student) -> Account {
        Account(username: name, email: email, passwordHash: "hash-\(name)", role: role, createdAt: start)
    }

    @Test(arguments: AuthBackend.all)
    func usernamesAndEmailsBelongToOneAccount(_ backend: AuthBackend) async throws {
        try await Self.withStore(backend) { transactions, store in
            let ada = try await transactions.write { tx in try store.insert(Self.account("ada", email: "ada@example.edu"), in: tx) }
            let id = try #require(ada.id)
            await #expect(throws: AuthError.accountExists(field: "username")) {
                try await transactions.write { tx in _ = try store.insert(Self.account("ada"), in: tx) }
            }
            await #expect(throws: AuthError.accountExists(field: "email")) {
                try await transactions.write { tx in _ = try store.insert(Self.account("grace", email: "ada@example.edu"), in: tx) }
            }
            let (none1, none2) = try await transactions.write { tx throws in
                (try store.insert(Self.account("n1"), in: tx), try store.insert(Self.account("n2"), in: tx))
            }
            #expect(none1.id != none2.id, "many accounts may have no email")
            try await transactions.read { tx throws in
                #expect(try store.find(username: "ada", in: tx)?.id == id)
                #expect(try store.find(email: "ada@example.edu", in: tx)?.id == id)
                #expect(try store.find(id: id, in: tx)?.passwordHash == "hash-ada")
                #expect(try store.find(username: "grace", in: tx) == nil)
                #expect(try store.count(in: tx) == 3)
            }
            await #expect(throws: AuthError.accountExists(field: "username")) {
                try await transactions.write { tx in try store.rename(accountID: id, to: "n1", in: tx) }
            }
            try await transactions.write { tx throws in
                try store.rename(accountID: id, to: "lovelace", in: tx)
                try store.updatePasswordHash(accountID: id, hash: "new-hash", in: tx)
            }
            try await transactions.read { tx throws in
                let renamed = try #require(try store.find(id: id, in: tx))
                #expect(renamed.username == "lovelace" && renamed.passwordHash == "new-hash")
                #expect(try store.find(username: "ada", in: tx) == nil)
            }
        }
    }

    @Test(arguments: AuthBackend.all)
    func accountsListInIDOrderAndStatusDecidesWhoIsEnabled(_ backend: AuthBackend) async throws {
        try await Self.withStore(backend) { transactions, store in
            let ids = try await transactions.write { tx throws in
                try ["a", "b", "c", "d"].map { try #require(try store.insert(Self.account($0), in: tx).id) }
            }
            try await transactions.write { tx in try store.setStatus(accountID: ids[1], disabled: true, role: .admin, in: tx) }
            try await transactions.read { tx throws in
                #expect(try store.list(after: 0, limit: 2, in: tx).map(\.id) == [ids[0], ids[1]])
                #expect(try store.list(after: ids[1], limit: 10, in: tx).map(\.id) == [ids[2], ids[3]])
                #expect(try store.enabledAccounts(among: ids + [9_999], in: tx) == [ids[0], ids[2], ids[3]])
                let disabled = try #require(try store.find(id: ids[1], in: tx))
                #expect(disabled.disabled && disabled.role == .admin)
            }
        }
    }

    @Test(arguments: AuthBackend.all)
    func aTokenIsLiveOnlyWhileUnexpiredUnrevokedAndItsAccountEnabled(_ backend: AuthBackend) async throws {
        try await Self.withStore(backend) { transactions, store in
            let hour: TimeInterval = 3600
            let (account, token) = try await transactions.write { tx throws in
                let account = try #require(try store.insert(Self.account("ada"), in: tx).id)
                let token = try store.insertToken(
                    AccessToken(id: nil, accountID: account, tokenHash: Data([1, 2, 3]), createdAt: Self.start, expiresAt: Self.start + hour, revokedAt: nil),
                    in: tx
                )
                return (account, token)
            }
            let tokenID = try #require(token.id)
            try await transactions.read { tx throws in
                let live = try #require(try store.liveToken(hash: Data([1, 2, 3]), now: Self.start, in: tx))
                #expect(live.0.id == tokenID && live.1.id == account)
                #expect(try store.liveToken(hash: Data([1, 2, 3]), now: Self.start + hour, in: tx) == nil, "expired at its expiry")
                #expect(try store.liveToken(hash: Data([9]), now: Self.start, in: tx) == nil)
            }
            try await transactions.write { tx in try store.setStatus(accountID: account, disabled: true, role: .student, in: tx) }
            #expect(try await transactions.read { tx in try store.liveToken(hash: Data([1, 2, 3]), now: Self.start, in: tx) } == nil)
            try await transactions.write { tx throws in
                try store.setStatus(accountID: account, disabled: false, role: .student, in: tx)
                try store.revokeToken(id: tokenID, now: Self.start, in: tx)
            }
            #expect(try await transactions.read { tx in try store.liveToken(hash: Data([1, 2, 3]), now: Self.start, in: tx) } == nil)
        }
    }

    @Test(arguments: AuthBackend.all)
    func revocationAndPruningTouchExactlyTheTokensTheyName(_ backend: AuthBackend) async throws {
        try await Self.withStore(backend) { transactions, store in
            let hour: TimeInterval = 3600
            let (account, other, tokens, othersToken) = try await transactions.write { tx throws in
                let account = try #require(try store.insert(Self.account("ada"), in: tx).id)
                let other = try #require(try store.insert(Self.account("grace"), in: tx).id)
                let tokens = try (0..<4).map { n in
                    try #require(try store.insertToken(
                        AccessToken(id: nil, accountID: account, tokenHash: Data([UInt8(n)]), createdAt: Self.start, expiresAt: Self.start + hour, revokedAt: nil),
                        in: tx
                    ).id)
                }
                let othersToken = try #require(try store.insertToken(
                    AccessToken(id: nil, accountID: other, tokenHash: Data([99]), createdAt: Self.start, expiresAt: Self.start + hour, revokedAt: nil), in: tx
                ).id)
                return (account, other, tokens, othersToken)
            }
            func live() async throws -> [Int64] {
                try await transactions.read { tx throws in
                    try (0..<4).compactMap { n in try store.liveToken(hash: Data([UInt8(n)]), now: Self.start, in: tx)?.0.id }
                }
            }
            try await transactions.write { tx in try store.revokeTokensBeyond(2, accountID: account, now: Self.start, in: tx) }
            #expect(try await live() == [tokens[2], tokens[3]], "the newest two are kept")
            let revoked = try await transactions.write { tx in try store.revokeTokens(accountID: account, keeping: tokens[3], now: Self.start, in: tx) }
            #expect(revoked == 1)
            #expect(try await live() == [tokens[3]])
            #expect(try await transactions.read { tx in try store.liveToken(hash: Data([99]), now: Self.start, in: tx)?.1.id } == other)

            let pruned = try await transactions.write { tx throws in
                (try store.pruneTokens(before: Self.start, in: tx), try store.pruneTokens(before: Self.start + 1, in: tx))
            }
            #expect(pruned == (0, 3), "revoked before the cutoff goes; revoked at it stays")
            let expired = try await transactions.write { tx in try store.pruneTokens(before: Self.start + hour + 1, in: tx) }
            #expect(expired == 2, "the last live token and the other account's, both expired by then")
            _ = othersToken
        }
    }

    @Test(arguments: AuthBackend.all)
    func theServerKeyIsMadeOnceAndStaysTheSame(_ backend: AuthBackend) async throws {
        try await Self.withStore(backend) { transactions, store in
            let first = try await transactions.read { tx in try store.serverKey(in: tx) }
            let second = try await transactions.read { tx in try store.serverKey(in: tx) }
            #expect(first.count >= 32 && first == second)
        }
    }
}
