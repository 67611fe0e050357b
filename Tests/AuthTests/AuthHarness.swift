import GRDB
import Auth
import Crypto
import Foundation
import GatewayCore
import PostgresStores
import SQLiteStores
import Storage
import SQLiteStorage

/// Auth on its own SQLite file (Auth's tables only), with cheap hashing and a manual clock.
struct AuthHarness {
    let directory: URL
    let database: GatewayDatabase
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let auth: AuthService
    let accounts: AuthAccountDirectory

    /// `signUpsPerHour`: the shared sign-up limit (counted in the database, as a gateway does).
    init(signUpsPerHour: Int = 10) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("auth-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = try GatewayDatabase(path: directory.appendingPathComponent("auth.sqlite").path, modules: [AuthSchema.self])
        try database.migrate()
        // The database's own server key, as the composition root loads it.
        let key = SymmetricKey(data: try database.pool.read { db in try SQLiteAccountStore().serverKey(in: db) })
        auth = AuthService(
            transactions: database, store: SQLiteAccountStore(),
            hasher: PasswordHasher(parameters: .init(memoryKiB: 1024, iterations: 1, parallelism: 1), threads: 1),
            throttle: SharedSignInThrottle(rules: LoginThrottle(key: key), transactions: database, ledger: SQLiteSignInLedgerStore()),
            clock: clock, serverKey: key,
            signUps: SharedSignUpLimit(limit: signUpsPerHour, transactions: database, ledger: SQLiteSignInLedgerStore(), key: key)
        )
        accounts = AuthAccountDirectory(service: auth, credentialCacheSeconds: 600)
    }

    /// Entries the sign-in throttle keeps (reservations and failures).
    func throttleEntries() throws -> Int {
        try database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auth_sign_in_entries") ?? 0 }
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }
}
