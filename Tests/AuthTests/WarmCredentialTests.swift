import Auth
import Contracts
import Crypto
import Foundation
import GatewayCore
import GRDB
import PostgresStores
import SQLiteStores
import Storage
import Synchronization
import Testing
import SQLiteStorage

/// A credential verified lately from the student's own network is not a guess: it consults no
/// throttle (the registration-day hot path, where every SDSU request carries the password) and
/// costs no hash. From another network the same password goes through the throttle like any
/// guess, so a guesser being throttled can't use the cache to test guesses.
@Suite("Warm credentials")
struct WarmCredentialTests {
    /// The shared throttle, counting how often it is asked anything.
    final class CountingThrottle: SignInThrottling {
        let inner: SharedSignInThrottle
        let calls = Atomic<Int>(0)
        init(_ inner: SharedSignInThrottle) { self.inner = inner }
        func begin(username: String, address: String?, now: Date) async throws -> Result<LoginThrottle.Attempt, Throttled> {
            calls.add(1, ordering: .relaxed)
            return try await inner.begin(username: username, address: address, now: now)
        }
        func succeeded(_ attempt: LoginThrottle.Attempt, now: Date) async throws {
            calls.add(1, ordering: .relaxed)
            try await inner.succeeded(attempt, now: now)
        }
        func failed(_ attempt: LoginThrottle.Attempt, now: Date) async throws {
            calls.add(1, ordering: .relaxed)
            try await inner.failed(attempt, now: now)
        }
        func withdraw(_ attempt: LoginThrottle.Attempt) async throws {
            calls.add(1, ordering: .relaxed)
            try await inner.withdraw(attempt)
        }
        func retryAfter(username: String, address: String?, now: Date) async throws -> Int? {
            calls.add(1, ordering: .relaxed)
            return try await inner.retryAfter(username: username, address: address, now: now)
        }
    }

    @Test func aWarmCredentialFromItsOwnNetworkAsksNoThrottle() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try GatewayDatabase(path: directory.appendingPathComponent("auth.sqlite").path, modules: [AuthSchema.self])
        try database.migrate()
        let key = SymmetricKey(data: try await database.pool.read { db in try SQLiteAccountStore().serverKey(in: db) })
        let throttle = CountingThrottle(SharedSignInThrottle(
            rules: LoginThrottle(limits: .init(failuresPerUsername: 3, window: 60), key: key), transactions: database, ledger: SQLiteSignInLedgerStore()
        ))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_900_000_000))
        let auth = AuthService(
            transactions: database, store: SQLiteAccountStore(),
            hasher: PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 1),
            throttle: throttle, clock: clock, serverKey: key
        )
        let accounts = AuthAccountDirectory(service: auth, credentialCacheSeconds: 600)
        let id = try #require(try await auth.createAccount(username: "123456003", email: nil, password: "a fine passphrase", role: .student).id)
        let owner = "198.51.100.7", stranger = "203.0.113.9"

        // Cold: one counted verification.
        #expect(try await accounts.verifyPassword("a fine passphrase", accountID: id, signInName: "123456003", clientAddress: owner) == id)
        let cold = throttle.calls.load(ordering: .relaxed)
        #expect(cold > 0)
        let hashes = auth.hasher.hashCount
        // Warm, from the same network (another host of the same IPv6 /64 would count too): no throttle, no hash.
        for _ in 0..<20 {
            #expect(try await accounts.verifyPassword("a fine passphrase", accountID: id, signInName: "123456003", clientAddress: owner) == id)
        }
        #expect(throttle.calls.load(ordering: .relaxed) == cold, "a warm credential consults no throttle")
        #expect(auth.hasher.hashCount == hashes)

        // A stranger's three wrong guesses throttle the name for them; the right password from
        // their network is not answered from the cache: it waits like any guess.
        for _ in 0..<3 {
            await #expect(throws: AccountDirectoryError.invalidCredentials) {
                _ = try await accounts.verifyPassword("wrong guess", accountID: id, signInName: "123456003", clientAddress: stranger)
            }
        }
        await #expect(throws: AccountDirectoryError.self) {
            _ = try await accounts.verifyPassword("a fine passphrase", accountID: id, signInName: "123456003", clientAddress: stranger)
        }
        // The student, warm on their own network, is not held back.
        #expect(try await accounts.verifyPassword("a fine passphrase", accountID: id, signInName: "123456003", clientAddress: owner) == id)
    }
}
