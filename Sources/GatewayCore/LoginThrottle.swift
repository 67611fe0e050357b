public import Crypto
public import Foundation
import Synchronization

/// Limits failed sign-ins, so a password can't be guessed quickly, one address can't grind
/// through many accounts, and neither a stranger nor a classmate behind the same campus NAT can
/// lock a student out.
///
/// Counters, each over a sliding `window`:
/// - per username *and* address (default 5): the guessing limit from one place;
/// - per username from any address (default 100): guessing spread over many addresses;
/// - per address (default 50): one address trying many usernames.
///
/// A **known** pair (the username signed in successfully from this address within
/// `knownAddressLifetime`, 30 days) skips all three: its own counter
/// (`failuresFromKnownAddress`, default 20) is the only one that applies, so neither strangers
/// elsewhere, nor a classmate failing five times against it, nor fifty bad sign-ins of others
/// behind the same NAT keep the student out. Only twenty wrong passwords for that very
/// username from that very address slow it down (guessing from inside the NAT stays bounded).
///
/// Past a limit the throttle answers with a **growing delay** rather than a block for the
/// whole window: `firstDelay` after the last failure, doubling with each further failure the
/// delay let through, never more than `window`.
///
/// **Attempts are reserved** (``begin(username:address:now:)``): for the username's counters
/// the check and the count happen in one step under the lock, before the password is hashed,
/// so many concurrent guesses for one account can't all pass its limit while the first ones
/// are still hashing. ``succeeded(_:now:)`` gives the reservation back; ``failed(_:now:)``
/// also counts the failure against the address. (The address counter counts failures only,
/// not attempts in flight: a campus NAT where hundreds sign in at once is not slowed down,
/// and one address's concurrent sprays are bounded by its share of the hasher.)
///
/// **Memory is bounded**: usernames and addresses are kept only as 128-bit HMAC-SHA256 tags
/// under a server key (never the text, so a 1 MiB username costs 17 bytes), each counter holds
/// at most its limit of entries, and the tables hold at most `capacity` counters and
/// `knownCapacity` known pairs, evicting the longest idle first. IPv6 counts per /64.
/// The state here is in memory: it protects one process (an upstream's sign-ins, tests). The
/// gateway's own sign-ins use Auth's shared throttle, which keeps the same counters, by the
/// same rules (``counters(username:address:pair:known:)``, ``delay(for:limit:now:)``), in the
/// database every instance shares.
public final class LoginThrottle: SignInThrottling {
    public struct Limits: Sendable {
        /// Failures for one username from one client address.
        public var failuresPerUsername: Int
        /// Failures for one username summed over every address.
        public var failuresPerUsernameOverall: Int
        /// Failures from one client address, whatever the username.
        public var failuresPerAddress: Int
        /// Failures for one username from an address it is known at.
        public var failuresFromKnownAddress: Int
        public var window: TimeInterval
        /// The first delay past a limit; each further failure doubles it, up to `window`.
        public var firstDelay: TimeInterval
        /// How long a successful sign-in makes its address known for that username.
        public var knownAddressLifetime: TimeInterval
        /// The most counters kept (the longest idle are evicted beyond it).
        public var capacity: Int
        /// The most known (username, address) pairs kept.
        public var knownCapacity: Int

        public init(
            failuresPerUsername: Int = 5, failuresPerUsernameOverall: Int = 100,
            failuresPerAddress: Int = 50, failuresFromKnownAddress: Int = 20, window: TimeInterval = 15 * 60,
            firstDelay: TimeInterval = 15, knownAddressLifetime: TimeInterval = 30 * 24 * 3600,
            capacity: Int = 200_000, knownCapacity: Int = 200_000
        ) {
            self.failuresPerUsername = failuresPerUsername
            self.failuresPerUsernameOverall = failuresPerUsernameOverall
            self.failuresPerAddress = failuresPerAddress
            self.failuresFromKnownAddress = failuresFromKnownAddress
            self.window = window
            self.firstDelay = firstDelay
            self.knownAddressLifetime = knownAddressLifetime
            self.capacity = max(16, capacity)
            self.knownCapacity = max(16, knownCapacity)
        }
    }

    /// A 128-bit tag of what a counter counts (its kind is part of the MAC'd message).
    public struct Key: Hashable, Sendable {
        public let high: UInt64
        public let low: UInt64

        public init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        /// The 16 bytes, big-endian: how a shared ledger stores the counter.
        public var bytes: Data {
            var data = Data(count: 16)
            for index in 0..<8 {
                data[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
                data[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
            }
            return data
        }
    }

    /// One counter an attempt belongs to, with its limit; address counters count failures only.
    public struct Counter: Sendable {
        public let key: Key
        public let limit: Int
        public let isAddress: Bool
    }

    /// A reserved attempt: it counts as a failure until ``succeeded(_:now:)`` gives it back.
    public struct Attempt: Sendable {
        /// The counters reserved (all but the address's).
        public let keys: [Key]
        /// The (username, address) pair.
        public let pair: Key
        /// The address's counter, counted when the attempt fails.
        public let address: (key: Key, limit: Int)?
        /// Whether the pair was known (signed in from there lately).
        public let known: Bool
        public let at: Date
        /// Identifies the reservation in a shared ledger (random; unused in memory).
        public let reservation: Int64

        public init(keys: [Key], pair: Key, address: (key: Key, limit: Int)?, known: Bool, at: Date, reservation: Int64 = 0) {
            self.keys = keys
            self.pair = pair
            self.address = address
            self.known = known
            self.at = at
            self.reservation = reservation
        }
    }

    private struct State {
        var failures: [Key: [Date]] = [:]
        /// Known (username, address) pairs, with when they last signed in.
        var known: [Key: Date] = [:]
    }

    public let limits: Limits
    private let key: SymmetricKey
    private let state = Mutex(State())

    /// - Parameter key: the server key the tags are MAC'd under (random per process when not given).
    public init(limits: Limits = Limits(), key: SymmetricKey = SymmetricKey(size: .bits256)) {
        self.limits = limits
        self.key = key
    }

    /// Reserves an attempt, or answers how many seconds to wait. The attempt counts against
    /// every counter it belongs to at once.
    public func begin(username: String, address: String?, now: Date) -> Result<Attempt, Throttled> {
        let pair = pairKey(username: username, address: address)
        return state.withLock { state in
            let known = address != nil && state.known[pair].map { now.timeIntervalSince($0) < limits.knownAddressLifetime } == true
            let counters = self.counters(username: username, address: address, pair: pair, known: known)
            var wait: TimeInterval = 0
            for counter in counters {
                wait = max(wait, delay(for: state.failures[counter.key] ?? [], limit: counter.limit, now: now))
            }
            if wait > 0 { return .failure(Throttled(retryAfterSeconds: max(1, Int(wait.rounded(.up))))) }
            let reserved = counters.filter { !$0.isAddress }
            for counter in reserved { record(counter.key, limit: counter.limit, now: now, in: &state) }
            let addressCounter = counters.first { $0.isAddress }.map { (key: $0.key, limit: $0.limit) }
            return .success(Attempt(keys: reserved.map(\.key), pair: pair, address: addressCounter, known: known, at: now))
        }
    }

    /// The password was right: the reservation is given back, this address's failures for the
    /// username are cleared, and the address becomes known for it. Failures from elsewhere
    /// still count, so a sign-in by the owner doesn't give a distributed guesser a fresh
    /// allowance.
    public func succeeded(_ attempt: Attempt, now: Date) {
        state.withLock { state in
            for key in attempt.keys {
                guard var list = state.failures[key] else { continue }
                if let index = list.lastIndex(of: attempt.at) { list.remove(at: index) }
                state.failures[key] = list.isEmpty ? nil : list
            }
            state.failures[attempt.pair] = nil
            state.failures[knownGuard(attempt.pair)] = nil
            if state.known[attempt.pair] == nil, state.known.count >= limits.knownCapacity {
                Self.evict(from: &state.known, keeping: limits.knownCapacity * 9 / 10) { $0 }
            }
            state.known[attempt.pair] = now
        }
    }

    /// The password was wrong: the reservation stays counted, and the failure counts against
    /// the address too.
    public func failed(_ attempt: Attempt, now: Date) {
        guard let address = attempt.address else { return }
        state.withLock { state in record(address.key, limit: address.limit, now: now, in: &state) }
    }

    private func record(_ key: Key, limit: Int, now: Date, in state: inout State) {
        var list = (state.failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.window }
        list.append(now)
        if list.count > limit * 2 { list.removeFirst(list.count - limit * 2) }
        if state.failures[key] == nil { makeRoom(in: &state, now: now) }
        state.failures[key] = list
    }

    /// The attempt never reached a verdict (hashing was saturated): its reservation is given
    /// back and nothing else changes.
    public func withdraw(_ attempt: Attempt) {
        state.withLock { state in
            for key in attempt.keys {
                guard var list = state.failures[key], let index = list.lastIndex(of: attempt.at) else { continue }
                list.remove(at: index)
                state.failures[key] = list.isEmpty ? nil : list
            }
        }
    }

    /// Seconds a new attempt would wait now, or nil: a read-only look (tests, diagnostics).
    public func retryAfter(username: String, address: String?, now: Date) -> Int? {
        let pair = pairKey(username: username, address: address)
        return state.withLock { state in
            let known = address != nil && state.known[pair].map { now.timeIntervalSince($0) < limits.knownAddressLifetime } == true
            var wait: TimeInterval = 0
            for counter in counters(username: username, address: address, pair: pair, known: known) {
                wait = max(wait, delay(for: state.failures[counter.key] ?? [], limit: counter.limit, now: now))
            }
            return wait > 0 ? max(1, Int(wait.rounded(.up))) : nil
        }
    }

    /// How many counters and known pairs are held (memory bounds are tested on these).
    public var tableSizes: (counters: Int, known: Int) {
        state.withLock { ($0.failures.count, $0.known.count) }
    }

    /// The (username, address) pair's key.
    public func pairKey(username: String, address: String?) -> Key {
        tag("p", username, address.map(Self.network) ?? "-")
    }

    /// The counters an attempt belongs to, with their limits: the known pair's own counter
    /// alone, else the pair's, the username's and the address's.
    public func counters(username: String, address: String?, pair: Key, known: Bool) -> [Counter] {
        if known { return [Counter(key: knownGuard(pair), limit: limits.failuresFromKnownAddress, isAddress: false)] }
        var keys = [
            Counter(key: pair, limit: limits.failuresPerUsername, isAddress: false),
            Counter(key: tag("u", username, ""), limit: limits.failuresPerUsernameOverall, isAddress: false),
        ]
        if let address { keys.append(Counter(key: tag("a", Self.network(address), ""), limit: limits.failuresPerAddress, isAddress: true)) }
        return keys
    }

    /// The counter of failures from an address the pair is known at.
    public func knownGuard(_ pair: Key) -> Key { Key(high: pair.high ^ 0x6b6e_6f77_6e00_0000, low: pair.low) }

    /// The wait a counter imposes: none below its limit; past it, `firstDelay` doubled for each
    /// failure beyond the limit, from the latest failure, capped at the window. `failures` are
    /// in time order.
    public func delay(for failures: [Date], limit: Int, now: Date) -> TimeInterval {
        let recent = failures.filter { now.timeIntervalSince($0) < limits.window }
        guard recent.count >= limit, let latest = recent.last else { return 0 }
        let excess = min(recent.count - limit, 30)
        let delay = min(limits.window, limits.firstDelay * pow(2, Double(excess)))
        return max(0, delay - now.timeIntervalSince(latest))
    }

    /// Frees room for a new counter: expired ones first, then the longest idle.
    private func makeRoom(in state: inout State, now: Date) {
        guard state.failures.count >= limits.capacity else { return }
        state.failures = state.failures.filter { _, dates in dates.contains { now.timeIntervalSince($0) < limits.window } }
        if state.failures.count >= limits.capacity {
            Self.evict(from: &state.failures, keeping: limits.capacity * 9 / 10) { $0.last ?? .distantPast }
        }
    }

    /// Keeps the `keeping` most recently active entries.
    private static func evict<Value>(from table: inout [Key: Value], keeping: Int, lastActive: (Value) -> Date) {
        let order = table.map { ($0.key, lastActive($0.value)) }.sorted { $0.1 > $1.1 }
        for (key, _) in order.dropFirst(keeping) { table.removeValue(forKey: key) }
    }

    /// The HMAC-SHA256 tag (first 128 bits) of a counter's kind and parts under the server key.
    private func tag(_ kind: String, _ first: String, _ second: String) -> Key {
        var message = Data(kind.utf8)
        message.append(0)
        message.append(contentsOf: first.utf8)
        message.append(0)
        message.append(contentsOf: second.utf8)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        func word(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
        return Key(high: word(mac[0..<8]), low: word(mac[8..<16]))
    }

    /// The unit an address is counted by: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its /64.
    public static func network(_ address: String) -> String { ClientNetwork.key(address) }
}

/// A refused attempt: how long to wait.
public struct Throttled: Error, Sendable, Equatable {
    public let retryAfterSeconds: Int

    public init(retryAfterSeconds: Int) { self.retryAfterSeconds = retryAfterSeconds }
}

/// Where sign-in attempts are reserved and counted: ``LoginThrottle`` in one process's memory,
/// or a ledger in the database all instances share (Auth's `SharedSignInThrottle`).
public protocol SignInThrottling: Sendable {
    /// Reserves an attempt, or answers how long to wait.
    func begin(username: String, address: String?, now: Date) async throws -> Result<LoginThrottle.Attempt, Throttled>
    /// The password was right.
    func succeeded(_ attempt: LoginThrottle.Attempt, now: Date) async throws
    /// The password was wrong.
    func failed(_ attempt: LoginThrottle.Attempt, now: Date) async throws
    /// No verdict was reached: the reservation is given back.
    func withdraw(_ attempt: LoginThrottle.Attempt) async throws
    /// Seconds a new attempt would wait now, or nil (nothing is reserved).
    func retryAfter(username: String, address: String?, now: Date) async throws -> Int?
}
