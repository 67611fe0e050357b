import AuthTestSupport
import GatewayHTTP
import HTTPTypes
import Auth
import Foundation
import GatewayCore
import HummingbirdTesting
import TestSupport
import Testing

@Suite("Password changes and admin account changes through the real router")
struct AccountManagementTests {
    @Test func changingThePasswordRevokesOtherTokensButNotThisOne() async throws {
        let gateway = try await AuthGateway.make()
        defer { gateway.cleanUp() }
        let current = try await gateway.account("hal", role: .student, password: "first passphrase")
        let other = try await gateway.auth.issueToken(username: "hal", password: "first passphrase", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withRouter { client in
            let wrong = try await client.json(
                .put, "/v1/me/password", body: #"{"currentPassword":"not it","newPassword":"second passphrase"}"#, token: current
            )
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.object["type"] as? String == "/problems/validation-failed")
            let weak = try await client.json(
                .put, "/v1/me/password", body: #"{"currentPassword":"first passphrase","newPassword":"short"}"#, token: current
            )
            #expect(weak.status == .unprocessableContent)
            #expect(try await client.json(.get, "/v1/me", token: other).status == .ok, "a refused change revokes nothing")

            let changed = try await client.json(
                .put, "/v1/me/password", body: #"{"currentPassword":"first passphrase","newPassword":"second passphrase"}"#, token: current
            )
            #expect(changed.status == .noContent)
            #expect(try await client.json(.get, "/v1/me", token: current).status == .ok)
            #expect(try await client.json(.get, "/v1/me", token: other).status == .unauthorized)
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"hal","password":"first passphrase"}"#).status == .forbidden)
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"hal","password":"second passphrase"}"#).status == .created)
        }
    }

    /// Someone holding a stolen token guesses the current password: this route's own throttle
    /// stops them (429), and the owner still signs in at once, from the same address too.
    @Test func wrongCurrentPasswordsAreThrottledHereWithoutLockingTheOwnerOut() async throws {
        let gateway = try await AuthGateway.make()
        defer { gateway.cleanUp() }
        let stolen = try await gateway.account("ivy", role: .student, password: "first passphrase")
        try await gateway.withRouter { client async throws in
            var statuses: [Int] = []
            for guess in 0..<12 {
                let reply = try await client.json(
                    .put, "/v1/me/password", body: #"{"currentPassword":"guess \#(guess)","newPassword":"second passphrase"}"#, token: stolen
                )
                statuses.append(Int(reply.status.code))
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == 422 }, "\(statuses)")
            #expect(statuses.dropFirst(5).allSatisfy { $0 == 429 }, "\(statuses)")
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"ivy","password":"first passphrase"}"#).status == .created)
            // The owner's own sign-in failures are counted apart as before.
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"ivy","password":"not it"}"#).status == .forbidden)
        }
    }

    @Test func adminsDisableAndReenableAccountsButNotTheirOwn() async throws {
        let gateway = try await AuthGateway.make()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("sam", role: .student)
        let studentID = try #require(try await gateway.auth.identity(bearer: student)).accountID
        let adminID = try #require(try await gateway.auth.identity(bearer: admin)).accountID
        try await gateway.withRouter { client in
            #expect(try await client.json(.patch, "/v1/admin/accounts/\(adminID)", body: #"{"disabled":true}"#, token: student).status == .forbidden)
            let disabled = try await client.json(.patch, "/v1/admin/accounts/\(studentID)", body: #"{"disabled":true}"#, token: admin)
            #expect(disabled.status == .ok)
            #expect(disabled.object["disabled"] as? Bool == true)
            #expect(try await client.json(.get, "/v1/me", token: student).status == .unauthorized)
            let login = #"{"username":"sam","password":"correct horse battery"}"#
            #expect(try await client.json(.post, "/v1/auth/token", body: login).status == .forbidden)

            let enabled = try await client.json(
                .patch, "/v1/admin/accounts/\(studentID)", body: #"{"disabled":false,"role":"instructor"}"#, token: admin
            )
            #expect(enabled.object["disabled"] as? Bool == false)
            #expect(enabled.object["role"] as? String == "instructor")
            #expect(try await client.json(.post, "/v1/auth/token", body: login).status == .created)

            let own = try await client.json(.patch, "/v1/admin/accounts/\(adminID)", body: #"{"role":"student"}"#, token: admin)
            #expect(own.status == .conflict)
            #expect(try await client.json(.patch, "/v1/admin/accounts/999999", body: #"{"disabled":true}"#, token: admin).status == .notFound)
            #expect(try await client.json(.patch, "/v1/admin/accounts/abc", body: #"{"disabled":true}"#, token: admin).status == .notFound)
            #expect(try await client.json(.patch, "/v1/admin/accounts/\(studentID)", body: #"{"role":"wizard"}"#, token: admin).status == .badRequest)
        }
    }

    @Test func anAdminDemotedAMomentAgoCannotFinishAChange() async throws {
        let gateway = try await AuthGateway.make()
        defer { gateway.cleanUp() }
        let first = try #require(try await gateway.auth.identity(bearer: try await gateway.account("ada", role: .admin)))
        let second = try #require(try await gateway.auth.identity(bearer: try await gateway.account("bob", role: .admin)))
        let student = try #require(try await gateway.auth.identity(bearer: try await gateway.account("sam", role: .student)))
        // Both admins act at once; the writes run one after the other.
        _ = try await gateway.auth.updateAccount(id: second.accountID, disabled: nil, role: .student, by: first)
        await #expect(throws: AuthError.notAnAdmin) {
            _ = try await gateway.auth.updateAccount(id: first.accountID, disabled: true, role: nil, by: second)
        }
        await #expect(throws: AuthError.notAnAdmin) {
            _ = try await gateway.auth.updateAccount(id: student.accountID, disabled: true, role: nil, by: second)
        }
        #expect(try await gateway.auth.account(id: first.accountID)?.disabled == false)
        #expect(try await gateway.auth.account(id: student.accountID)?.disabled == false)
    }
}
