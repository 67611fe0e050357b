import Auth
import AuthTestSupport
import Catalog
import Contracts
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Registration
import Storage
import TestSupport
import Testing

/// The world the eligibility suites share: a gateway with the demo term, an admin, and a v1
/// student with a profile (red id 822326003, password "correct horse battery").
struct EligibilityWorld {
    let gateway: RegistrationGateway
    let admin: String
    let student: String
    let studentID: Int64

static func make(_ backend: TestBackend, configure: (inout RegistrationSettings) -> Void = { _ in }) async throws -> EligibilityWorld {
        let gateway = try await RegistrationGateway.registration(backend, configure: configure)
        _ = try await gateway.catalog.terms.seed(DemoTerms.all)
        let admin = try await gateway.account("registrar", role: .admin)
        let student = try await gateway.account("ada", role: .student)
        let studentID = try #require(try await gateway.accountID("ada"))
        try await gateway.withRouter { client in
            let profile = try await client.json(
                .put, "/v1/me/registration/profile",
                body: #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#, token: student
            )
            #expect(profile.status == .ok)
        }
        return EligibilityWorld(gateway: gateway, admin: admin, student: student, studentID: studentID)
    }

    var sdsu: String { "redid=822326003&password=correct%20horse%20battery" }

    /// The rules of a refusal, in the order answered.
    static func rules(_ reply: HTTPReply) -> [String] {
        (reply.object["reasons"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } ?? []
    }
}
