import Auth
import Foundation
import GatewayCore
import Testing

@Suite("Pure auth rules")
struct RulesTests {
    @Test(arguments: [
        ("short", false), ("password123", false), ("PassWord1", false), ("correct horse", true),
        ("12345678", false), ("analytical-engine", true),
    ])
    func passwordPolicy(password: String, acceptable: Bool) {
        #expect((PasswordPolicy.violation(password) == nil) == acceptable)
    }

    @Test func passwordMustDifferFromUsername() {
        #expect(PasswordPolicy.violation("ada.lovelace", username: "Ada.Lovelace") != nil)
    }

    @Test func usernamesNormalizeAndEmailsAreAccepted() throws {
        #expect(try Username.normalize("  Ada_L ").get() == "ada_l")
        #expect(try Username.normalize("Ada@Example.EDU").get() == "ada@example.edu")
        #expect(throws: UsernameError.length) { try Username.normalize("ab").get() }
        #expect(throws: UsernameError.characters) { try Username.normalize("ada lovelace").get() }
        #expect(throws: UsernameError.invalidEmail) { try Username.normalize("ada@localhost").get() }
    }

    @Test func throttleCountsFailuresPerUsernameAndAddress() {
        let throttle = LoginThrottle(limits: .init(failuresPerUsername: 2, failuresPerUsernameOverall: 4, failuresPerAddress: 3, window: 60))
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        #expect(throttle.retryAfter(username: "a", address: "10.0.0.1", now: t0) == nil)
        throttle.recordFailure(username: "a", address: "10.0.0.1", now: t0)
        throttle.recordFailure(username: "a", address: "10.0.0.1", now: t0.addingTimeInterval(10))
        #expect(throttle.retryAfter(username: "a", address: "10.0.0.1", now: t0.addingTimeInterval(20)) == 40)
        // Someone else's guessing doesn't lock the owner out from their own address.
        #expect(throttle.retryAfter(username: "a", address: "10.0.0.2", now: t0.addingTimeInterval(20)) == nil)
        // Another username from the same address: one more failure trips the address limit.
        #expect(throttle.retryAfter(username: "b", address: "10.0.0.1", now: t0.addingTimeInterval(20)) == nil)
        throttle.recordFailure(username: "b", address: "10.0.0.1", now: t0.addingTimeInterval(20))
        #expect(throttle.retryAfter(username: "c", address: "10.0.0.1", now: t0.addingTimeInterval(21)) == 39)
        #expect(throttle.retryAfter(username: "c", address: "10.0.0.9", now: t0.addingTimeInterval(21)) == nil)
        // The window slides.
        #expect(throttle.retryAfter(username: "a", address: "10.0.0.1", now: t0.addingTimeInterval(61)) == nil)
    }

    @Test func throttleBoundsGuessingSpreadOverManyAddresses() {
        let throttle = LoginThrottle(limits: .init(failuresPerUsername: 2, failuresPerUsernameOverall: 4, failuresPerAddress: 3, window: 60))
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        for n in 0..<4 { throttle.recordFailure(username: "a", address: "10.0.1.\(n)", now: t0) }
        #expect(throttle.retryAfter(username: "a", address: "10.0.2.1", now: t0.addingTimeInterval(5)) == 55)
        #expect(throttle.retryAfter(username: "z", address: "10.0.2.1", now: t0.addingTimeInterval(5)) == nil)
        // The owner signs in from their usual address (known from an earlier success) despite the
        // overall limit; other addresses stay held back, and the success resets nothing for them.
        let owner = LoginThrottle(limits: .init(failuresPerUsername: 2, failuresPerUsernameOverall: 4, failuresPerAddress: 3, window: 60))
        owner.recordSuccess(username: "a", address: "192.0.2.7", now: t0)
        for n in 0..<4 { owner.recordFailure(username: "a", address: "10.0.1.\(n)", now: t0) }
        #expect(owner.retryAfter(username: "a", address: "192.0.2.7", now: t0.addingTimeInterval(5)) == nil)
        #expect(owner.retryAfter(username: "a", address: "10.0.2.1", now: t0.addingTimeInterval(5)) == 55)
        owner.recordSuccess(username: "a", address: "192.0.2.7", now: t0.addingTimeInterval(6))
        #expect(owner.retryAfter(username: "a", address: "10.0.2.1", now: t0.addingTimeInterval(7)) == 53)
    }

    @Test func ipv6AddressesCountPerSlash64() {
        #expect(LoginThrottle.network("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(LoginThrottle.network("2001:0db8:0001:0002:ffff:1:2:3") == "2001:db8:1:2::/64")
        #expect(LoginThrottle.network("2001:db8::1") == "2001:db8:0:0::/64")
        #expect(LoginThrottle.network("::1") == "0:0:0:0::/64")
        #expect(LoginThrottle.network("203.0.113.9") == "203.0.113.9")
        #expect(LoginThrottle.network("::ffff:203.0.113.9") == "::ffff:203.0.113.9", "IPv4-mapped addresses stay per address")
        let throttle = LoginThrottle(limits: .init(failuresPerUsername: 2, failuresPerUsernameOverall: 100, failuresPerAddress: 100, window: 60))
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        throttle.recordFailure(username: "a", address: "2001:db8:1:2::10", now: t0)
        throttle.recordFailure(username: "a", address: "2001:db8:1:2::11", now: t0)
        #expect(throttle.retryAfter(username: "a", address: "2001:db8:1:2::12", now: t0) == 60, "one /64 is one guesser")
        #expect(throttle.retryAfter(username: "a", address: "2001:db8:1:3::12", now: t0) == nil)
    }

    @Test func productionHashesUseOWASPParametersAndVerify() async throws {
        let hasher = PasswordHasher(parameters: .owasp, threads: 1)
        let encoded = try await hasher.hash("correct horse battery")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try await hasher.verify("correct horse battery", encoded: encoded))
        #expect(try await !hasher.verify("correct horse batterz", encoded: encoded))
        #expect(try await !hasher.verify("correct horse battery", encoded: nil))
        let again = try await hasher.hash("correct horse battery")
        #expect(again != encoded, "every hash has its own salt")
    }

    @Test func constantTimeEqualityIsEquality() {
        #expect(constantTimeEquals(Array("secret".utf8), Array("secret".utf8)))
        #expect(!constantTimeEquals(Array("secret".utf8), Array("secreT".utf8)))
        #expect(!constantTimeEquals(Array("secret".utf8), Array("secrets".utf8)))
    }

    @Test func cursorsRoundTripAndRejectForgeries() throws {
        let cursor = PageCursor(after: ["Computer Science", "42"])
        #expect(try PageCursor(token: cursor.token) == cursor)
        #expect(throws: InvalidInput("The cursor is not one this server issued.", field: "cursor")) { try PageCursor(token: "%%%not-a-cursor") }
    }
}
