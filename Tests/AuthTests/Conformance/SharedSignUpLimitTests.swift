import Auth
import Foundation
import GatewayCore
import Storage
import TestSupport
import Testing

/// Self-service sign-ups counted in the database: two instances on one database allow one
/// limit between them, not one each, on both backends.
@Suite("Shared sign-up limit")
struct SharedSignUpLimitTests {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)

    @Test(arguments: SignInLedgerBackend.all)
    func twoInstancesShareOneLimit(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await backend.with { transactions, ledger async throws in
            let key = SymmetricKeyFixture.key
            let first = SharedSignUpLimit(limit: 3, transactions: transactions, ledger: ledger, key: key)
            let second = SharedSignUpLimit(limit: 3, transactions: transactions, ledger: ledger, key: key)
            #expect(try await first.take(clientAddress: "198.51.100.7", now: Self.t0) == nil)
            #expect(try await second.take(clientAddress: "198.51.100.7", now: Self.t0.addingTimeInterval(10)) == nil)
            #expect(try await first.take(clientAddress: "198.51.100.7", now: Self.t0.addingTimeInterval(20)) == nil)
            // The fourth, on either instance, waits until the first leaves the hour.
            #expect(try await second.take(clientAddress: "198.51.100.7", now: Self.t0.addingTimeInterval(30)) == 3570)
            #expect(try await first.take(clientAddress: "198.51.100.7", now: Self.t0.addingTimeInterval(30)) == 3570)
            // A refused attempt is not counted: an hour after the first, one slot is free again.
            #expect(try await second.take(clientAddress: "198.51.100.7", now: Self.t0.addingTimeInterval(3601)) == nil)
            #expect(try await first.take(clientAddress: "198.51.100.7", now: Self.t0.addingTimeInterval(3602)) == 8)
            // Another network has its own count; an IPv6 /64 is one network.
            #expect(try await first.take(clientAddress: "198.51.100.8", now: Self.t0.addingTimeInterval(40)) == nil)
            for host in 1...3 {
                #expect(try await second.take(clientAddress: "2001:db8:1:2::\(host)", now: Self.t0.addingTimeInterval(50)) == nil)
            }
            #expect(try await first.take(clientAddress: "2001:db8:1:2::99", now: Self.t0.addingTimeInterval(50)) != nil)
        }
    }

    /// The hourly housekeeping keeps sign-up entries for their hour, even when the sign-in
    /// throttle's own window is shorter.
    @Test(arguments: SignInLedgerBackend.all)
    func pruningKeepsTheSignUpHour(_ backend: StoreBackend<any SignInLedgerStoring>) async throws {
        try await backend.with { transactions, ledger async throws in
            let key = SymmetricKeyFixture.key
            let limit = SharedSignUpLimit(limit: 1, transactions: transactions, ledger: ledger, key: key)
            let throttle = SharedSignInThrottle(
                rules: LoginThrottle(limits: .init(window: 60), key: key), transactions: transactions, ledger: ledger
            )
            #expect(try await limit.take(clientAddress: "198.51.100.9", now: Self.t0) == nil)
            _ = try await throttle.prune(now: Self.t0.addingTimeInterval(1800), keepingAtLeast: limit.window)
            #expect(try await limit.take(clientAddress: "198.51.100.9", now: Self.t0.addingTimeInterval(1800)) == 1800)
        }
    }
}
