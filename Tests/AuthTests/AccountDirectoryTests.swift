import Auth
import Contracts
import Foundation
import GRDB
import GatewayCore
import Storage
import Testing
import SQLiteStorage

/// Auth's answer to the AccountDirectory contract and its token housekeeping, on a real SQLite
/// file holding only Auth's tables.
@Suite("Account directory and token pruning")
struct AccountDirectoryTests {
    @Test func aStudentAccountIsCreatedInTheCallersTransactionAndSignsIn() async throws {
        let h = try AuthHarness()
        defer { h.cleanUp() }
        let sealed = try await h.accounts.sealPassword("seven distinct chars", clientAddress: nil)
        #expect(!sealed.encoded.contains("seven distinct chars"))
        let accounts = h.accounts
        let now = h.clock.now()
        let id = try await h.database.pool.write { db in
            try accounts.createStudentAccount(username: "800000001", password: sealed, at: now, in: db)
        }
        // A rolled-back caller's transaction leaves no account behind.
        struct Rollback: Error {}
        await #expect(throws: Rollback.self) {
            try await h.database.pool.write { db in
                _ = try accounts.createStudentAccount(username: "800000002", password: sealed, at: now, in: db)
                throw Rollback()
            }
        }
        #expect(try await h.database.pool.read { db in try accounts.account(username: "800000002", in: db) } == nil)
        await #expect(throws: AccountDirectoryError.usernameTaken) {
            try await h.database.pool.write { db in _ = try accounts.createStudentAccount(username: "800000001", password: sealed, at: now, in: db) }
        }
        #expect(try await accounts.verifyPassword("seven distinct chars", accountID: id, signInName: "800000001", clientAddress: "10.0.0.1") == id)
        await #expect(throws: AccountDirectoryError.invalidCredentials) {
            _ = try await accounts.verifyPassword("wrong password!", accountID: id, signInName: "800000001", clientAddress: "10.0.0.1")
        }
        await #expect(throws: AccountDirectoryError.invalidCredentials) {
            _ = try await accounts.verifyPassword("seven distinct chars", accountID: nil, signInName: "800000009", clientAddress: "10.0.0.1")
        }
    }

    @Test func disabledAccountsAreInactiveAndCannotSignIn() async throws {
        let h = try AuthHarness()
        defer { h.cleanUp() }
        let a = try await h.auth.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let b = try await h.auth.createAccount(username: "bob", email: nil, password: "correct horse battery", role: .student)
        let admin = try await h.auth.createAccount(username: "root", email: nil, password: "correct horse battery", role: .admin)
        _ = try await h.auth.updateAccount(id: b.id!, disabled: true, role: nil, by: admin.identity)
        let accounts = h.accounts
        let inactive = try await h.database.pool.read { db in try accounts.inactiveAccounts(among: [a.id!, b.id!, 9999], in: db) }
        #expect(inactive == [b.id!, 9999])
        await #expect(throws: AccountDirectoryError.invalidCredentials) {
            _ = try await accounts.verifyPassword("correct horse battery", accountID: b.id!, signInName: "bob", clientAddress: nil)
        }
        try await h.database.pool.write { db in try accounts.rename(accountID: a.id!, to: "ada2", in: db) }
        #expect(try await h.database.pool.read { db in try accounts.account(id: a.id!, in: db)?.username } == "ada2")
        await #expect(throws: AccountDirectoryError.usernameTaken) {
            try await h.database.pool.write { db in try accounts.rename(accountID: a.id!, to: "bob", in: db) }
        }
    }

    /// Expired and revoked tokens older than the retention go; live ones and recent history stay.
    @Test func pruningDeletesOnlyOldDeadTokens() async throws {
        let h = try AuthHarness()
        defer { h.cleanUp() }
        _ = try await h.auth.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let short = try await h.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: 1, clientAddress: nil)
        let revoked = try await h.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: 600, clientAddress: nil)
        let live = try await h.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: 60 * 24 * 3, clientAddress: nil)
        let revokedID = try #require(try await h.auth.identity(bearer: revoked.token)?.tokenID)
        try await h.auth.revoke(tokenID: revokedID)
        #expect(try await h.auth.pruneTokens(olderThan: 24 * 3600) == 0, "nothing is a day old yet")
        h.clock.advance(by: 25 * 3600)
        #expect(try await h.auth.pruneTokens(olderThan: 24 * 3600) == 2)
        #expect(try await h.auth.identity(bearer: live.token) != nil)
        #expect(try await h.auth.identity(bearer: short.token) == nil)
        let left = try await h.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM access_tokens") }
        #expect(left == 1)
    }
}

/// Tables that only grew: live tokens per account are capped.
@Suite("Token cap")
struct TokenCapTests {
    @Test func issuingBeyondTheCapRevokesTheOldest() async throws {
        let h = try AuthHarness()
        defer { h.cleanUp() }
        _ = try await h.auth.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        var tokens: [String] = []
        for _ in 0..<(h.auth.settings.maxLiveTokens + 10) {
            tokens.append(try await h.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: 60, clientAddress: nil).token)
        }
        let live = try await h.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM access_tokens WHERE revoked_at IS NULL")
        }
        #expect(live == h.auth.settings.maxLiveTokens)
        #expect(try await h.auth.identity(bearer: tokens[0]) == nil, "the oldest was revoked")
        #expect(try await h.auth.identity(bearer: tokens.last!) != nil)
    }
}
