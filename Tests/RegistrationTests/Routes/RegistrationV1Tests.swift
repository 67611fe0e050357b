import Auth
import AuthTestSupport
import Contracts
import TestSupport
import GatewayHTTP
import HTTPTypes
import GatewayCore
import Catalog
import Foundation
import HummingbirdTesting
import Registration
import Testing

/// The v1 registration API: catalog browsing, the student's own registration, problem types,
/// and admin catalog management.
@Suite("v1 registration API")
struct RegistrationV1Tests {

    @Test(arguments: TestBackend.all) func theStudentsOwnRegistration(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        let token = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client in
            let noProfile = try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: token)
            #expect(noProfile.status == .conflict && noProfile.object["type"] as? String == "/problems/student-profile-required")
            #expect(try await client.json(.get, "/v1/me/registration").status == .unauthorized)

            let profile = try await client.json(
                .put, "/v1/me/registration/profile",
                body: #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#, token: token
            )
            #expect(profile.status == .ok && profile.object["redId"] as? String == "822326003")

            let added = try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: token)
            #expect(added.status == .created)
            #expect((added.object["enrollments"] as? [[String: Any]])?.first?["classId"] as? Int == 7030)

            func problem(_ reply: HTTPReply) -> String? { reply.object["type"] as? String }
            #expect(problem(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: token)) == "/problems/already-enrolled")
            #expect(problem(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7036}"#, token: token)) == "/problems/class-full")
            let clash = try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7044}"#, token: token)
            #expect(clash.status == .conflict && problem(clash) == "/problems/time-conflict" && clash.object["conflictingClassId"] as? Int == 7030)
            #expect(problem(try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7030}"#, token: token)) == "/problems/already-enrolled")
            #expect(problem(try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7031}"#, token: token)) == "/problems/not-full")
            let waitlisted = try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7036}"#, token: token)
            #expect(waitlisted.status == .created && waitlisted.object["position"] as? Int == 1)
            #expect(problem(try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7036}"#, token: token)) == "/problems/already-waitlisted")
            for id in [7000, 7004] {
                #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: "{\"classId\":\(id)}", token: token).status == .created)
            }
            let limit = try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7010}"#, token: token)
            #expect(problem(limit) == "/problems/class-limit" && limit.object["limit"] as? Int == 3)

            let schedule = try await client.json(.get, "/v1/me/registration", token: token)
            #expect((schedule.object["enrollments"] as? [[String: Any]])?.compactMap { $0["classId"] as? Int } == [7000, 7004, 7030])
            #expect((schedule.object["waitlist"] as? [[String: Any]])?.first?["position"] as? Int == 1)
            #expect(schedule.object["classLimit"] as? Int == 3)

            #expect(try await client.json(.delete, "/v1/me/registration/enrollments/7030", token: token).status == .noContent)
            #expect(problem(try await client.json(.delete, "/v1/me/registration/enrollments/7030", token: token)) == "/problems/not-enrolled")
            #expect(try await client.json(.delete, "/v1/me/registration/waitlist/7036", token: token).status == .noContent)
            #expect(problem(try await client.json(.delete, "/v1/me/registration/waitlist/7036", token: token)) == "/problems/not-waitlisted")
            #expect(problem(try await client.json(.post, "/v1/me/registration/offers/7036/claim", token: token)) == "/problems/no-offer")
            #expect(try await client.json(.delete, "/v1/me/registration", token: token).status == .noContent)
            let reset = try await client.json(.get, "/v1/me/registration", token: token)
            #expect((reset.object["enrollments"] as? [Any])?.isEmpty == true)

            // The profile's red id also works with the SDSU protocol, with the v1 password.
            let sdsu = try await client.json(.get, "/registration/studentclasses?redid=822326003&password=correct%20horse%20battery")
            #expect(sdsu.body == #"{"classes":[],"waitlist":[]}"#)
        }
    }

    @Test(arguments: TestBackend.all) func claimingAnOfferedSeatOverV1AndSDSU(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend) { $0.waitlistPolicy = .offer }
        defer { gateway.cleanUp() }
        let service = gateway.registration
        let leaver = try await gateway.student("100000001")
        let v1 = try await gateway.account("grace", role: .student)
        try await gateway.openSeats(2, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        try await service.enrollment.register(studentID: try await gateway.student("100000002"), classID: 7030)
        try await gateway.withRouter { client in
            _ = try await client.json(.put, "/v1/me/registration/profile", body: #"{"redId":"100000003","firstName":"G","lastName":"H","email":"g@h"}"#, token: v1)
            _ = try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7030}"#, token: v1)
            _ = try await client.json(.post, "/registration/addstudent", body: #"{"firstname":"S","lastname":"D","redid":"100000004","password":"password","email":"s@d"}"#)
            _ = try await client.json(.get, "/registration/waitlistclass?redid=100000004&password=password&courseid=7030")
            try await service.enrollment.drop(studentID: leaver, classID: 7030)
            let schedule = try await client.json(.get, "/v1/me/registration", token: v1)
            #expect((schedule.object["offers"] as? [[String: Any]])?.first?["classId"] as? Int == 7030)
            let claimed = try await client.json(.post, "/v1/me/registration/offers/7030/claim", token: v1)
            #expect(claimed.status == .created)
            // The SDSU student is next; their registerclass claims the seat.
            try await service.enrollment.drop(studentID: try await service.students.authenticate(redID: "100000002", password: "password", clientAddress: nil), classID: 7030)
            let sdsu = try await client.json(.get, "/registration/registerclass?redid=100000004&password=password&courseid=7030")
            #expect(sdsu.body == #"{"ok":"Course added"}"#)
        }
    }

    @Test(arguments: TestBackend.all) func theSettingsArePublicAndFollowTheConfiguration(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend) {
            $0.classLimit = 5
            $0.waitlistPolicy = .offer
            $0.offerWindow = 90 * 60
        }
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let settings = try await client.json(.get, "/v1/registration/settings")
            #expect(settings.status == .ok)
            #expect(settings.object["classLimit"] as? Int == 5)
            #expect(settings.object["waitlistPolicy"] as? String == "offer")
            #expect(settings.object["offerWindowMinutes"] as? Int == 90)
            #expect(settings.object["maximumWaitlists"] as? Int == EnrollmentRules.maximumWaitlists)
            // A signed-in student's registration names the same limit.
            let ada = try await gateway.account("ada", role: .student)
            #expect(try await client.json(.get, "/v1/me/registration", token: ada).object["classLimit"] as? Int == 5)
        }
        let defaults = try await RegistrationGateway.registration(backend)
        defer { defaults.cleanUp() }
        try await defaults.withRouter { client in
            let settings = try await client.json(.get, "/v1/registration/settings")
            #expect(settings.object["classLimit"] as? Int == 3)
            #expect(settings.object["waitlistPolicy"] as? String == "none")
        }
    }

}

@Suite("Red id changes")
struct RegistrationRedIDChangeTests {
    @Test(arguments: TestBackend.all) func changingTheRedIDOfAnAddstudentAccountRenamesItsSignIn(_ backend: TestBackend) async throws {
        let gateway = try await RegistrationGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let added = try await client.json(
                .post, "/registration/addstudent",
                body: #"{"firstname":"Roger","lastname":"Whitney","redid":"123456003","password":"password","email":"whitney@sdsu.edu"}"#
            )
            #expect(added.body == #"{"ok":"Student Added"}"#)
            // Signing in is Auth's (`POST /v1/auth/token`): its service, here.
            let token = try await gateway.auth.issueToken(username: "123456003", password: "password", lifetimeMinutes: nil, clientAddress: nil).token
            let changed = try await client.json(
                .put, "/v1/me/registration/profile",
                body: #"{"redId":"123456004","firstName":"Roger","lastName":"Whitney","email":"whitney@sdsu.edu"}"#, token: token
            )
            #expect(changed.status == .ok)
            _ = try await gateway.auth.issueToken(username: "123456004", password: "password", lifetimeMinutes: nil, clientAddress: nil)
            await #expect(throws: (any Error).self, "the old red id signs nobody in") {
                try await gateway.auth.issueToken(username: "123456003", password: "password", lifetimeMinutes: nil, clientAddress: nil)
            }
            let sdsu = try await client.json(.get, "/registration/studentclasses?redid=123456004&password=password")
            #expect(sdsu.body == #"{"classes":[],"waitlist":[]}"#)
            // The old red id is free again.
            let reuse = try await client.json(
                .post, "/registration/addstudent",
                body: #"{"firstname":"Ann","lastname":"Other","redid":"123456003","password":"password","email":"a@sdsu.edu"}"#
            )
            #expect(reuse.body == #"{"ok":"Student Added"}"#)
        }
    }
}
