import Auth
import Foundation
import GatewayCore
import Testing
import TestSupport

/// Sign-ups from one address are limited across instances: two Auth instances on one database allow
/// one limit between them (before, each instance counted in its own memory, so N instances
/// allowed N times the limit). Through each instance's sign-up use case, as its route calls it
/// with the client's address.
@Suite("Sign-ups across instances")
struct SharedSignUpAcrossInstancesTests {
    static func signUp(_ gateway: AuthGateway, _ name: String) async throws -> Bool {
        do {
            _ = try await gateway.auth.createAccount(
                username: name, email: nil, password: "a fine passphrase", role: .student, clientAddress: "198.51.100.7"
            )
            return true
        } catch AuthError.signUpThrottled(let seconds) {
            #expect(seconds > 0 && seconds <= 3600)
            return false
        }
    }

    @Test(arguments: TestBackend.all)
    func twoInstancesShareTheSignUpLimit(_ backend: TestBackend) async throws {
        let first = try await AuthGateway.make(backend, signUpsPerHour: 3)
        defer { first.cleanUp() }
        let second = try first.secondInstance(signUpsPerHour: 3)
        defer { second.cleanUp() }
        #expect(try await Self.signUp(first, "ann"))
        #expect(try await Self.signUp(first, "ben"))
        #expect(try await Self.signUp(second, "cat"))
        #expect(try await !Self.signUp(second, "dan"), "the fourth from this address, on the other instance")
        #expect(try await !Self.signUp(first, "eve"))
        // Another address is not affected.
        _ = try await second.auth.createAccount(username: "fay", email: nil, password: "a fine passphrase", role: .student, clientAddress: "198.51.100.8")
    }
}
