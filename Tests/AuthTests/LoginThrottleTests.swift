import Auth
import GatewayCore
import Foundation
import Testing

/// The sign-in throttle: counters, growing delays, reservations under concurrency, known
/// addresses behind a shared NAT, and bounded memory.
@Suite("Sign-in throttle")
struct LoginThrottleTests {
    static let t0 = Date(timeIntervalSince1970: 1_000_000)

    static func limits(pair: Int = 2, overall: Int = 4, address: Int = 3, known: Int = 20, firstDelay: TimeInterval = 5) -> LoginThrottle.Limits {
        .init(
            failuresPerUsername: pair, failuresPerUsernameOverall: overall, failuresPerAddress: address,
            failuresFromKnownAddress: known, window: 60, firstDelay: firstDelay
        )
    }

    /// A wrong password: the reserved attempt stays counted.
    @discardableResult
    static func fail(_ throttle: LoginThrottle, _ user: String, _ address: String?, at seconds: TimeInterval) -> Bool {
        let now = t0.addingTimeInterval(seconds)
        guard case .success(let attempt) = throttle.begin(username: user, address: address, now: now) else { return false }
        throttle.failed(attempt, now: now)
        return true
    }

    /// A right password.
    @discardableResult
    static func succeed(_ throttle: LoginThrottle, _ user: String, _ address: String?, at seconds: TimeInterval) -> Bool {
        let now = t0.addingTimeInterval(seconds)
        guard case .success(let attempt) = throttle.begin(username: user, address: address, now: now) else { return false }
        throttle.succeeded(attempt, now: now)
        return true
    }

    static func wait(_ throttle: LoginThrottle, _ user: String, _ address: String?, at seconds: TimeInterval) -> Int? {
        throttle.retryAfter(username: user, address: address, now: t0.addingTimeInterval(seconds))
    }

    @Test func countsPerUsernameAndAddressWithGrowingDelays() {
        let throttle = LoginThrottle(limits: Self.limits())
        #expect(Self.wait(throttle, "a", "10.0.0.1", at: 0) == nil)
        Self.fail(throttle, "a", "10.0.0.1", at: 0)
        Self.fail(throttle, "a", "10.0.0.1", at: 10)
        // At the limit: the first delay (5 s) from the latest failure, not a block for the window.
        #expect(Self.wait(throttle, "a", "10.0.0.1", at: 12) == 3)
        #expect(!Self.fail(throttle, "a", "10.0.0.1", at: 12), "refused attempts are not let through")
        #expect(Self.wait(throttle, "a", "10.0.0.1", at: 15) == nil)
        Self.fail(throttle, "a", "10.0.0.1", at: 15)
        // One past the limit: the delay doubles.
        #expect(Self.wait(throttle, "a", "10.0.0.1", at: 16) == 9)
        // Someone else's guessing doesn't slow the owner down on their own address.
        #expect(Self.wait(throttle, "a", "10.0.0.2", at: 16) == nil)
        // The window slides.
        #expect(Self.wait(throttle, "a", "10.0.0.1", at: 80) == nil)
    }

    @Test func boundsGuessingSpreadOverManyAddresses() {
        let throttle = LoginThrottle(limits: Self.limits())
        for n in 0..<4 { Self.fail(throttle, "a", "10.0.1.\(n)", at: 0) }
        #expect(Self.wait(throttle, "a", "10.0.2.1", at: 1) == 4)
        #expect(Self.wait(throttle, "z", "10.0.2.1", at: 1) == nil)
    }

    /// 64 guesses at once for one user from one address: exactly the limit get through, because
    /// the check and the count are one step (before, all 64 passed while the first hashed).
    @Test func concurrentGuessesReserveTheirAttempts() async {
        let throttle = LoginThrottle(limits: .init(failuresPerUsername: 5, failuresPerUsernameOverall: 100, failuresPerAddress: 100, window: 900))
        let now = Self.t0
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    guard case .success = throttle.begin(username: "victim", address: "198.51.100.7", now: now) else { return false }
                    try? await Task.sleep(for: .milliseconds(5)) // the hash
                    return true
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == 5)
    }

    /// Behind one campus NAT: a classmate's five wrong guesses against the student, and fifty
    /// bad sign-ins of others, don't keep the student (known at that address) out.
    @Test func aKnownPairPassesTheAddressAndPairLimitsBehindANAT() {
        let throttle = LoginThrottle(limits: Self.limits(pair: 5, overall: 100, address: 50, known: 20))
        let nat = "192.0.2.10"
        #expect(Self.succeed(throttle, "student", nat, at: 0))
        for n in 0..<60 { Self.fail(throttle, "other\(n)", nat, at: 1) }
        #expect(Self.wait(throttle, "newcomer", nat, at: 2) != nil, "the address limit holds strangers back")
        for _ in 0..<5 { Self.fail(throttle, "student", nat, at: 3) }
        #expect(Self.wait(throttle, "student", nat, at: 4) == nil)
        #expect(Self.succeed(throttle, "student", nat, at: 4), "the right password from the known pair works")
        // Guessing from inside the NAT against the known pair is still bounded.
        for _ in 0..<20 { Self.fail(throttle, "student", nat, at: 5) }
        #expect(Self.wait(throttle, "student", nat, at: 6) != nil)
    }

    /// A flood of long, distinct usernames keeps a bounded table (before: every username's full
    /// text, for 15 minutes, without limit).
    @Test func memoryStaysBoundedWhateverTheUsernames() {
        var limits = Self.limits(pair: 5, overall: 100, address: 1_000_000)
        limits.capacity = 500
        limits.knownCapacity = 64
        let throttle = LoginThrottle(limits: limits)
        let long = String(repeating: "x", count: 10_000)
        for n in 0..<5_000 { Self.fail(throttle, long + "\(n)", "203.0.113.\(n % 200)", at: Double(n) / 100) }
        #expect(throttle.tableSizes.counters <= 500)
        for n in 0..<1_000 { Self.succeed(throttle, "user\(n)", "198.51.100.\(n % 250)", at: 100 + Double(n) / 100) }
        #expect(throttle.tableSizes.known <= 64)
        // Evicting, not refusing: the newest pair is known.
        for _ in 0..<10 { Self.fail(throttle, "user999", "198.51.100.249", at: 120) }
        #expect(Self.wait(throttle, "user999", "198.51.100.249", at: 120) == nil, "still known after evictions")
    }

    @Test func ipv6AddressesCountPerSlash64() {
        #expect(LoginThrottle.network("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(LoginThrottle.network("2001:0db8:0001:0002:ffff:1:2:3") == "2001:db8:1:2::/64")
        #expect(LoginThrottle.network("2001:db8::1") == "2001:db8:0:0::/64")
        #expect(LoginThrottle.network("::1") == "0:0:0:0::/64")
        #expect(LoginThrottle.network("203.0.113.9") == "203.0.113.9")
        #expect(LoginThrottle.network("::ffff:203.0.113.9") == "::ffff:203.0.113.9", "IPv4-mapped addresses stay per address")
        let throttle = LoginThrottle(limits: Self.limits(pair: 2, overall: 100, address: 100))
        Self.fail(throttle, "a", "2001:db8:1:2::10", at: 0)
        Self.fail(throttle, "a", "2001:db8:1:2::11", at: 0)
        #expect(Self.wait(throttle, "a", "2001:db8:1:2::12", at: 0) == 5, "one /64 is one guesser")
        #expect(Self.wait(throttle, "a", "2001:db8:1:3::12", at: 0) == nil)
    }

    @Test func aClientHoldsAtMostItsShareOfTheHasher() {
        let admission = ClientAdmission(perClient: 2)
        #expect(admission.enter("a"))
        #expect(admission.enter("a"))
        #expect(!admission.enter("a"), "a third place for one client is refused")
        #expect(admission.enter("b"), "others still get in")
        admission.leave("a")
        #expect(admission.enter("a"))
        admission.leave("a"); admission.leave("a"); admission.leave("b")
        #expect(admission.clients == 0)
    }
}
