public import Contracts
public import Crypto
public import Foundation
public import GatewayCore
public import Storage

/// Self-service sign-ups per client network (an IPv4 address, an IPv6 /64), counted in the
/// database every instance shares (the sign-in throttle's ledger, under a counter of its own):
/// two instances behind one balancer allow one limit, not two, and a restart forgets nothing.
///
/// Counting and checking happen in one write unit: SQLite's single writer orders them, and on
/// PostgreSQL the unit is SERIALIZABLE, so concurrent sign-ups on any instances can't all pass
/// the last slot. Entries past ``window`` are pruned by Auth's hourly housekeeping.
public struct SharedSignUpLimit: Sendable {
    /// Sign-ups one network may make in any ``window``.
    public let limit: Int
    public let window: TimeInterval
    let transactions: any TransactionRunner
    let ledger: any SignInLedgerStoring
    let key: SymmetricKey

    public init(limit: Int, window: TimeInterval = 3600, transactions: any TransactionRunner, ledger: any SignInLedgerStoring, key: SymmetricKey) {
        self.limit = max(1, limit)
        self.window = window
        self.transactions = transactions
        self.ledger = ledger
        self.key = key
    }

    /// The ledger's counter for sign-ups from `network`: 16 bytes of an HMAC under the server
    /// key (never the address), in a namespace the sign-in counters don't share.
    func counter(network: String) -> Data {
        var message = Data("sign-up".utf8)
        message.append(0)
        message.append(contentsOf: network.utf8)
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key).prefix(16))
    }

    /// Counts a sign-up from `clientAddress` and returns nil, or the seconds to wait when its
    /// network is at the limit (the attempt is then not counted).
    public func take(clientAddress: String, now rawNow: Date) async throws -> Int? {
        let now = SharedSignInThrottle.stored(rawNow)
        let counter = counter(network: LoginThrottle.network(clientAddress))
        let limit = self.limit, window = self.window, ledger = self.ledger
        return try await transactions.write { db -> Int? in
            let recent = try ledger.entries(counters: [counter], since: now.addingTimeInterval(-window), in: db)[counter] ?? []
            if recent.count >= limit {
                let frees = recent[recent.count - limit].addingTimeInterval(window)
                return min(Int(window), max(1, Int(frees.timeIntervalSince(now).rounded(.up))))
            }
            try ledger.record(counters: [counter], at: now, reservation: 0, in: db)
            return nil
        }
    }
}

/// Counts self-service sign-ups per client network: ``SharedSignUpLimit`` in a gateway, the
/// in-memory ``RateLimit`` for a service on its own.
public protocol SignUpLimiting: Sendable {
    /// Counts a sign-up and returns nil, or the seconds to wait (the attempt then not counted).
    func take(clientAddress: String, now: Date) async throws -> Int?
}

extension SharedSignUpLimit: SignUpLimiting {}

extension RateLimit: SignUpLimiting {
    public func take(clientAddress: String, now: Date) async throws -> Int? {
        take(LoginThrottle.network(clientAddress), now: now)
    }
}
