import Auth
import Crypto
import Foundation
import GatewayCore
import PostgresStores
import SQLiteStores
import Storage
import TestSupport
import Testing

/// The ledger the shared sign-in throttle keeps, on both backends.
enum SignInLedgerBackend {
    static let all: [StoreBackend<any SignInLedgerStoring>] = [
        .sqlite("sign-in-ledger", modules: [AuthSchema.self]) { _ in SQLiteSignInLedgerStore() },
        .postgres("signinledger", modules: [AuthSchema.self]) { _ in PostgresSignInLedgerStore() },
    ]
}

/// The sign-in throttle every instance shares: ``LoginThrottle``'s rules with the counts in the
/// database. Each test makes two or three throttles on one database, as two or three gateway
/// instances would, and checks that they count as one.
@Suite("Shared sign-in throttle")
struct SharedSignInThrottleTests {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)

    static func limits(pair: Int = 2, overall: Int = 4, address: Int = 3, known: Int = 20) -> LoginThrottle.Limits {
        .init(failuresPerUsername: pair, failuresPerUsernameOverall: overall, failuresPerAddress: address, failuresFromKnownAddress: known, window: 60, firstDelay: 5)
    }

    /// `count` throttles ("instances") on one fresh database, with one server key.
    static func instances(
        _ backend: StoreBackend<any SignInLedgerStoring>, count: Int, limits: LoginThrottle.Limits,
        _ body: ([SharedSignInThrottle]) async throws -> Void
    ) async throws {
        let key = SymmetricKeyFixture.key
        try await backend.with { transactions, ledger in
            let throttles = (0..<count).map { _ in
                SharedSignInThrottle(rules: LoginThrottle(limits: limits, key: key), transactions: transactions, ledger: ledger)
            }
            try await body(throttles)
        }
    }

    @discardableResult
    static func fail(_ throttle: SharedSignInThrottle, _ user: String, _ address: String?, at seconds: TimeInterval) async throws -> Bool {
        let now = t0.addingTimeInterval(seconds)
        guard case .success(let attempt) = try await throttle.begin(username: user, address: address, now: now) else { return false }
        try await throttle.failed(attempt, now: now)
        return true
    }

    @discardableResult
    static func succeed(_ throttle: SharedSignInThrottle, _ user: String, _ address: String?, at seconds: TimeInterval) async throws -> Bool {
        let now = t0.addingTimeInterval(seconds)
        guard case .success(let attempt) = try await throttle.begin(username: user, address: address, now: now) else { return false }
        try await throttle.succeeded(attempt, now: now)
        return true
    }

    static func wait(_ throttle: SharedSignInThrottle, _ user: String, _ address: String?, at seconds: TimeInterval) async throws -> Int? {
        try await throttle.retryAfter(username: user, address: address, now: t0.addingTimeInterval(seconds))
    }

    /// Failures through one instance slow the next attempt down on another, with the same
    /// growing delays as in memory; the window slides.
    @Test(arguments: SignInLedgerBackend.all)
    func failuresCountAcrossInstancesWithGrowingDelays(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await Self.instances(backend, count: 2, limits: Self.limits()) { instances throws in
            let (a, b) = (instances[0], instances[1])
            #expect(try await Self.fail(a, "ada", "10.0.0.1", at: 0))
            #expect(try await Self.fail(b, "ada", "10.0.0.1", at: 10))
            #expect(try await Self.wait(a, "ada", "10.0.0.1", at: 12) == 3)
            #expect(try await Self.wait(b, "ada", "10.0.0.1", at: 12) == 3)
            #expect(try await !Self.fail(b, "ada", "10.0.0.1", at: 12), "refused on the other instance too")
            #expect(try await Self.fail(a, "ada", "10.0.0.1", at: 15))
            #expect(try await Self.wait(b, "ada", "10.0.0.1", at: 16) == 9, "one past the limit: the delay doubles")
            #expect(try await Self.wait(b, "ada", "10.0.0.2", at: 16) == nil, "the owner elsewhere isn't slowed")
            #expect(try await Self.wait(a, "ada", "10.0.0.1", at: 80) == nil, "the window slides")
        }
    }

    /// Thirty wrong guesses spread over three instances: exactly as many get a verdict as one
    /// instance alone would let through, and the rest are told to wait.
    @Test(arguments: SignInLedgerBackend.all)
    func guessesSpreadOverThreeInstancesAreCountedOnce(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await Self.instances(backend, count: 3, limits: Self.limits(pair: 5, overall: 100, address: 100)) { instances throws in
            var checked = 0
            for guess in 0..<30 where try await Self.fail(instances[guess % 3], "victim", "198.51.100.7", at: Double(guess) / 100) {
                checked += 1
            }
            #expect(checked == 5)
        }
    }

    /// 48 guesses at once, over three instances, for one user from one address: the check and
    /// the count are one unit, so exactly the limit get through.
    @Test(arguments: SignInLedgerBackend.all)
    func concurrentGuessesOnManyInstancesReserveTheirAttempts(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await Self.instances(backend, count: 3, limits: .init(failuresPerUsername: 5, failuresPerUsernameOverall: 100, failuresPerAddress: 100, window: 900)) {
            instances throws in
            let now = Self.t0
            let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<48 {
                    group.addTask {
                        guard case .success = try await instances[n % 3].begin(username: "victim", address: "198.51.100.7", now: now) else { return false }
                        return true
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 5)
        }
    }

    /// A sign-in through one instance makes the address known to all: behind a campus NAT the
    /// student gets in on any instance while strangers there are held back; a withdrawn
    /// attempt gives its reservation back.
    @Test(arguments: SignInLedgerBackend.all)
    func aKnownPairIsKnownToEveryInstance(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await Self.instances(backend, count: 2, limits: Self.limits(pair: 5, overall: 100, address: 50, known: 20)) { instances throws in
            let (a, b) = (instances[0], instances[1])
            let nat = "192.0.2.10"
            #expect(try await Self.succeed(a, "student", nat, at: 0))
            for n in 0..<60 { try await Self.fail(n % 2 == 0 ? a : b, "other\(n)", nat, at: 1) }
            #expect(try await Self.wait(b, "newcomer", nat, at: 2) != nil, "the address limit holds strangers back")
            for _ in 0..<5 { try await Self.fail(b, "student", nat, at: 3) }
            #expect(try await Self.wait(b, "student", nat, at: 4) == nil)
            #expect(try await Self.succeed(b, "student", nat, at: 4))
            // Reserved then withdrawn (no verdict): nothing stays counted.
            for _ in 0..<10 {
                guard case .success(let attempt) = try await b.begin(username: "grace", address: "203.0.113.1", now: Self.t0) else {
                    Issue.record("withdrawn attempts were counted")
                    return
                }
                try await b.withdraw(attempt)
            }
        }
    }

    /// Pruning deletes what the window no longer counts and keeps what it does.
    @Test(arguments: SignInLedgerBackend.all)
    func pruningKeepsOnlyWhatStillCounts(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await Self.instances(backend, count: 1, limits: Self.limits()) { instances throws in
            let throttle = instances[0]
            try await Self.fail(throttle, "old", "10.0.0.1", at: 0)
            try await Self.fail(throttle, "new", "10.0.0.2", at: 100)
            try await Self.fail(throttle, "new", "10.0.0.2", at: 101)
            let pruned = try await throttle.prune(now: Self.t0.addingTimeInterval(102))
            #expect(pruned == 3, "the old failure's pair, username and address entries")
            #expect(try await Self.wait(throttle, "new", "10.0.0.2", at: 102) == 4)
        }
    }
}

/// One server key for the throttles of a test (every instance reads it from the database).
enum SymmetricKeyFixture {
    static let key = Crypto.SymmetricKey(size: .bits256)
}
