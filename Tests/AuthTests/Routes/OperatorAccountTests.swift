import AuthTestSupport
import Auth
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// The `operator` role through the real router on both backends: admins create operator
/// accounts and change roles to and from it (the column's check admits it), and an operator
/// reads no account.
@Suite("Operator accounts")
struct OperatorAccountTests {
    @Test(arguments: TestBackend.all) func adminsCreateOperatorsAndChangeRolesToIt(_ backend: TestBackend) async throws {
        let gateway = try await AuthGateway.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        _ = try await gateway.account("stu", role: .student)
        try await gateway.withRouter { client in
            let created = try await client.json(
                .post, "/v1/admin/accounts", body: #"{"username":"ops","password":"a fine passphrase","role":"operator"}"#, token: admin
            )
            #expect(created.status == .created, "\(created.body)")
            #expect(created.object["role"] as? String == "operator")
            let token = try await client.json(.post, "/v1/auth/token", body: #"{"username":"ops","password":"a fine passphrase"}"#)
            let opsToken = try #require(token.object["token"] as? String, "\(token.body)")
            let me = try await client.json(.get, "/v1/me", token: opsToken)
            #expect(me.object["role"] as? String == "operator", "\(me.body)")
            // No student data: the account list is admin-only.
            #expect(try await client.json(.get, "/v1/admin/accounts", token: opsToken).status == .forbidden)

            let studentID = try #require(try await gateway.accountID("stu"))
            let changed = try await client.json(.patch, "/v1/admin/accounts/\(studentID)", body: #"{"role":"operator"}"#, token: admin)
            #expect(changed.status == .ok && changed.object["role"] as? String == "operator", "\(changed.body)")
            let back = try await client.json(.patch, "/v1/admin/accounts/\(studentID)", body: #"{"role":"student"}"#, token: admin)
            #expect(back.object["role"] as? String == "student")
            #expect(try await client.json(.post, "/v1/admin/accounts", body: #"{"username":"x","password":"a fine passphrase","role":"root"}"#, token: admin).status == .badRequest)
        }
    }
}
