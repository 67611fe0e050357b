import Contracts
import TestSupport
import GatewayHTTP
import HTTPTypes
import GatewayCore
import GatewayApp
import Catalog
import Foundation
import HummingbirdTesting
import Registration
import Testing

/// The v1 registration API: catalog browsing, the student's own registration, problem types,
/// and admin catalog management.
@Suite("v1 registration API")
struct RegistrationV1Tests {
    @Test(arguments: GatewayBackend.all) func catalogBrowsingWithFiltersAndCursors(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let subjects = try await client.json(.get, "/v1/registration/subjects")
            #expect(subjects.status == .ok)
            let items = try #require(subjects.object["items"] as? [[String: Any]])
            #expect(items.contains { $0["code"] as? String == "CS" && $0["classCount"] as? Int == 65 && $0["college"] as? String == "Science" })

            var ids: [Int] = []
            var cursor: String?
            repeat {
                let uri = "/v1/registration/classes?subject=CS&level=graduate&startsAtOrAfter=17:30&limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.json(.get, uri)
                #expect(page.status == .ok)
                ids += (page.object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                cursor = page.object["nextCursor"] as? String
            } while cursor != nil
            #expect(ids == [7033, 7036, 7038, 7041, 7046, 7049, 7051, 7052])

            let filtered = try await client.json(.get, "/v1/registration/classes?subject=8,2&days=TTH&open=true&instructor=root&q=software")
            #expect((filtered.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [])
            let open = try await client.json(.get, "/v1/registration/classes?subject=8&q=client&open=true")
            #expect((open.object["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [7037, 7052])

            let detail = try await client.json(.get, "/v1/registration/classes/7036")
            #expect(detail.status == .ok)
            #expect(detail.object["course"] as? String == "CS 540")
            #expect(detail.object["openSeats"] as? Int == 0)
            #expect(detail.object["description"] is String)
            let meeting = try #require((detail.object["meetings"] as? [[String: Any]])?.first)
            #expect(meeting["days"] as? [String] == ["tue", "thu"] && meeting["start"] as? String == "19:00" && meeting["end"] as? String == "20:15")

            let missing = try await client.json(.get, "/v1/registration/classes/1")
            #expect(missing.status == .notFound && missing.object["type"] as? String == "/problems/class-not-found")
            for bad in ["level=phd", "startsAtOrAfter=25:00", "days=XYZ", "open=maybe", "subject=NOPE", "cursor=@@@", "limit=0"] {
                let reply = try await client.json(.get, "/v1/registration/classes?\(bad)")
                #expect(reply.status == .badRequest, "\(bad)")
                #expect(reply.contentType == "application/problem+json")
            }
        }
    }

    @Test(arguments: GatewayBackend.all) func theStudentsOwnRegistration(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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

    @Test(arguments: GatewayBackend.all) func claimingAnOfferedSeatOverV1AndSDSU(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) { $0.registration.waitlistPolicy = .offer }
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

    @Test(arguments: GatewayBackend.all) func theSettingsArePublicAndFollowTheConfiguration(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) {
            $0.registration.classLimit = 5
            $0.registration.waitlistPolicy = .offer
            $0.registration.offerWindow = 90 * 60
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
        let defaults = try await TestGateway.registration(backend)
        defer { defaults.cleanUp() }
        try await defaults.withRouter { client in
            let settings = try await client.json(.get, "/v1/registration/settings")
            #expect(settings.object["classLimit"] as? Int == 3)
            #expect(settings.object["waitlistPolicy"] as? String == "none")
        }
    }

    @Test(arguments: GatewayBackend.all) func adminsManageTheCatalogAndSeeRosters(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("stu", role: .student)
        let enrolled = try await gateway.student("100000001")
        try await gateway.registration.enrollment.register(studentID: enrolled, classID: 7030)
        try await gateway.withRouter { client in
            #expect(try await client.json(.get, "/v1/admin/registration/classes/7030/roster", token: student).status == .forbidden)
            let roster = try await client.json(.get, "/v1/admin/registration/classes/7030/roster", token: admin)
            #expect(roster.status == .ok)
            #expect((roster.object["enrolled"] as? [[String: Any]])?.first?["redId"] as? String == "100000001")

            let seats = try await client.json(.patch, "/v1/admin/registration/classes/7030", body: #"{"seats":100}"#, token: admin)
            #expect(seats.status == .ok && seats.object["seats"] as? Int == 100)
            let tooFew = try await client.json(.patch, "/v1/admin/registration/classes/7036", body: #"{"seats":1}"#, token: admin)
            #expect(tooFew.status == .conflict && tooFew.object["type"] as? String == "/problems/seats-below-enrollment")

            let catalog = #"{"term":"2019-spring","subjects":[{"id":300,"code":"XYZ","title":"Xylophony","college":"Arts"}],"courses":[{"subject":"XYZ","number":"101","title":"XYLO I"}],"classes":[{"subject":"XYZ","course":"101","section":"01","scheduleNumber":"1","seats":5}]}"#
            let imported = try await client.json(.post, "/v1/admin/registration/imports?format=native", body: catalog, token: admin)
            #expect(imported.status == .ok)
            #expect((imported.object["classes"] as? [String: Any])?["created"] as? Int == 1)
            #expect(try await client.json(.post, "/v1/admin/registration/imports?format=native", body: catalog, token: student).status == .forbidden)
            #expect(try await client.json(.post, "/v1/admin/registration/imports?format=csv", body: catalog, token: admin).status == .badRequest)
            let listed = try await client.json(.get, "/v1/registration/classes?subject=XYZ")
            #expect((listed.object["items"] as? [Any])?.count == 1)

            let rosterPut = try await client.json(.put, "/v1/admin/registration/red-id-roster", body: #"{"redIds":["123456789"]}"#, token: admin)
            #expect(rosterPut.status == .ok && rosterPut.object["count"] as? Int == 1)
            #expect(try await client.json(.put, "/v1/admin/registration/red-id-roster", body: #"{"redIds":["12"]}"#, token: admin).status == .unprocessableContent)
        }
    }
}

@Suite("Red id changes")
struct RegistrationRedIDChangeTests {
    @Test(arguments: GatewayBackend.all) func changingTheRedIDOfAnAddstudentAccountRenamesItsSignIn(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let added = try await client.json(
                .post, "/registration/addstudent",
                body: #"{"firstname":"Roger","lastname":"Whitney","redid":"123456003","password":"password","email":"whitney@sdsu.edu"}"#
            )
            #expect(added.body == #"{"ok":"Student Added"}"#)
            let token = try #require(
                try await client.json(.post, "/v1/auth/token", body: #"{"username":"123456003","password":"password"}"#).object["token"] as? String
            )
            let changed = try await client.json(
                .put, "/v1/me/registration/profile",
                body: #"{"redId":"123456004","firstName":"Roger","lastName":"Whitney","email":"whitney@sdsu.edu"}"#, token: token
            )
            #expect(changed.status == .ok)
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"123456004","password":"password"}"#).status == .created)
            #expect(try await client.json(.post, "/v1/auth/token", body: #"{"username":"123456003","password":"password"}"#).status == .forbidden)
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
