import AuthTestSupport
import GatewayCore
import Auth
import Catalog
import Foundation
import HTTPTypes
import HummingbirdTesting
import Registration
import TestSupport
import Testing

/// Bounds on what one student can make the service keep, and who binds a red id.
@Suite("Registration limits and red id binding")
struct RegistrationLimitsTests {
    @Test(arguments: TestBackend.all) func aStudentIsOnAtMostTwentyFiveWaitlists(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let student = try await gateway.student("100000031")
        let classes = Array(try await gateway.registration.catalog.classIDs(matching: ClassQuery()).prefix(EnrollmentRules.maximumWaitlists + 1))
        for id in classes { try await gateway.openSeats(0, in: id) }
        for id in classes.dropLast() {
            _ = try await gateway.registration.enrollment.joinWaitlist(studentID: student, classID: id)
        }
        await #expect(throws: RegistrationError.violation(.waitlistLimit(limit: EnrollmentRules.maximumWaitlists))) {
            _ = try await gateway.registration.enrollment.joinWaitlist(studentID: student, classID: classes.last!)
        }
    }

    /// Under the `roster` policy any account could claim a classmate's red id through its own
    /// profile; now only an admin (or addstudent with the roster entry) binds one.
    @Test(arguments: TestBackend.all) func underTheRosterPolicyStudentsCannotBindRedIDsThemselves(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend) { $0.redIDPolicy = .roster }
        defer { gateway.cleanUp() }
        _ = try await gateway.registration.admin.replaceRedIDRoster(["100000041"])
        let mallory = try await gateway.account("mallory", role: .student)
        let admin = try await gateway.account("registrar", role: .admin)
        let malloryID = try #require(try await gateway.auth.identity(bearer: mallory)?.accountID)
        let profile = #"{"redId":"100000041","firstName":"Mal","lastName":"Lory","email":"m@sdsu.edu"}"#
        try await gateway.withRouter { client async throws in
            let claimed = try await client.json(.put, "/v1/me/registration/profile", body: profile, token: mallory)
            #expect(claimed.status == .forbidden)
            #expect(claimed.object["type"] as? String == "/problems/red-id-needs-proof")
            let bound = try await client.json(.put, "/v1/admin/registration/students/\(malloryID)/profile", body: profile, token: admin)
            #expect(bound.status == .ok)
            #expect(try await client.json(.put, "/v1/admin/registration/students/999999/profile", body: profile, token: admin).status == .notFound)
            // With the red id bound, the student may change their names.
            let renamed = #"{"redId":"100000041","firstName":"Mallory","lastName":"Lory","email":"m@sdsu.edu"}"#
            #expect(try await client.json(.put, "/v1/me/registration/profile", body: renamed, token: mallory).status == .ok)
        }
    }
}
