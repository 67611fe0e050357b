public import Contracts
public import Foundation
public import GatewayCore
public import Storage

/// The sign-in throttle every gateway instance on one database shares: ``LoginThrottle``'s
/// counters and rules, with the counts kept in the database (``SignInLedgerStoring``) instead of
/// one process's memory. Thirty wrong guesses spread over three instances are then counted as
/// thirty, not ten each.
///
/// A reservation reads its counters and adds to them in one write unit: on SQLite the single
/// writer orders them; on PostgreSQL the unit is SERIALIZABLE, so of two concurrent reservations
/// on one counter one is aborted and runs again, seeing the other. Entries older than the window
/// and pairs not seen for their lifetime are pruned by Auth's hourly housekeeping.
public struct SharedSignInThrottle: SignInThrottling {
    /// The counters and rules (its own in-memory state is not used).
    public let rules: LoginThrottle
    let transactions: any TransactionRunner
    let ledger: any SignInLedgerStoring

    public init(rules: LoginThrottle, transactions: any TransactionRunner, ledger: any SignInLedgerStoring) {
        self.rules = rules
        self.transactions = transactions
        self.ledger = ledger
    }

    /// `date` to the millisecond, as both backends store it: a wait computed from a stored
    /// time and the current one then never grows by a rounding.
    static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    public func begin(username: String, address: String?, now: Date) async throws -> Result<LoginThrottle.Attempt, Throttled> {
        let now = Self.stored(now)
        let rules = self.rules, ledger = self.ledger
        let pair = rules.pairKey(username: username, address: address)
        let reservation = Int64.random(in: 1...Int64.max)
        return try await transactions.write { transaction in
            let counters = try Self.counters(rules: rules, ledger: ledger, username: username, address: address, pair: pair, now: now, in: transaction)
            let wait = try Self.wait(rules: rules, ledger: ledger, counters: counters.list, now: now, in: transaction)
            if wait > 0 { return .failure(Throttled(retryAfterSeconds: max(1, Int(wait.rounded(.up))))) }
            let reserved = counters.list.filter { !$0.isAddress }
            try ledger.record(counters: reserved.map(\.key.bytes), at: now, reservation: reservation, in: transaction)
            let addressCounter = counters.list.first { $0.isAddress }.map { (key: $0.key, limit: $0.limit) }
            return .success(LoginThrottle.Attempt(
                keys: reserved.map(\.key), pair: pair, address: addressCounter, known: counters.known, at: now, reservation: reservation
            ))
        }
    }

    public func succeeded(_ attempt: LoginThrottle.Attempt, now: Date) async throws {
        let now = Self.stored(now)
        let rules = self.rules, ledger = self.ledger
        try await transactions.write { transaction in
            try ledger.release(reservation: attempt.reservation, in: transaction)
            try ledger.clear(counters: [attempt.pair.bytes, rules.knownGuard(attempt.pair).bytes], in: transaction)
            try ledger.markKnown(pair: attempt.pair.bytes, at: now, in: transaction)
        }
    }

    public func failed(_ attempt: LoginThrottle.Attempt, now: Date) async throws {
        guard let address = attempt.address else { return }
        let now = Self.stored(now)
        let ledger = self.ledger
        try await transactions.write { transaction in
            try ledger.record(counters: [address.key.bytes], at: now, reservation: 0, in: transaction)
        }
    }

    public func withdraw(_ attempt: LoginThrottle.Attempt) async throws {
        let ledger = self.ledger
        try await transactions.write { transaction in try ledger.release(reservation: attempt.reservation, in: transaction) }
    }

    public func retryAfter(username: String, address: String?, now: Date) async throws -> Int? {
        let now = Self.stored(now)
        let rules = self.rules, ledger = self.ledger
        let pair = rules.pairKey(username: username, address: address)
        let wait = try await transactions.readPreferringInline { transaction in
            let counters = try Self.counters(rules: rules, ledger: ledger, username: username, address: address, pair: pair, now: now, in: transaction)
            return try Self.wait(rules: rules, ledger: ledger, counters: counters.list, now: now, in: transaction)
        }
        return wait > 0 ? max(1, Int(wait.rounded(.up))) : nil
    }

    /// Deletes what no longer counts: entries older than the window (or than `keepingAtLeast`,
    /// for other counters sharing the ledger), pairs not seen for their lifetime. How many rows.
    public func prune(now: Date, keepingAtLeast: TimeInterval = 0) async throws -> Int {
        let limits = rules.limits, ledger = self.ledger
        return try await transactions.write { transaction in
            try ledger.prune(
                entriesBefore: now.addingTimeInterval(-max(limits.window, keepingAtLeast)), knownBefore: now.addingTimeInterval(-limits.knownAddressLifetime),
                in: transaction
            )
        }
    }

    static func counters(
        rules: LoginThrottle, ledger: any SignInLedgerStoring, username: String, address: String?, pair: LoginThrottle.Key, now: Date,
        in transaction: any StoreTransaction
    ) throws -> (list: [LoginThrottle.Counter], known: Bool) {
        var known = false
        if address != nil, let since = try ledger.knownSince(pair: pair.bytes, in: transaction) {
            known = now.timeIntervalSince(since) < rules.limits.knownAddressLifetime
        }
        return (rules.counters(username: username, address: address, pair: pair, known: known), known)
    }

    /// The longest wait any of the counters imposes now.
    static func wait(
        rules: LoginThrottle, ledger: any SignInLedgerStoring, counters: [LoginThrottle.Counter], now: Date, in transaction: any StoreTransaction
    ) throws -> TimeInterval {
        let entries = try ledger.entries(counters: counters.map(\.key.bytes), since: now.addingTimeInterval(-rules.limits.window), in: transaction)
        return counters.reduce(0) { wait, counter in
            max(wait, rules.delay(for: entries[counter.key.bytes] ?? [], limit: counter.limit, now: now))
        }
    }
}
