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

/// Eligibility where seats move, through the real router on both backends: holds that stop
/// drops, swaps that take the new seat or keep the old, promotion that skips a student no longer
/// eligible, drop-if-enrolled under promotion and claims, and the exception a posted grade makes.
@Suite("registration eligibility: seats that move")
struct EligibilitySeatMoveTests {
    @Test(arguments: TestBackend.all) func holdsOnDropsStopDropsLeavingLinesAndResets(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend)
        defer { world.gateway.cleanUp() }
        let admin = world.admin, student = world.student, id = world.studentID, sdsu = world.sdsu
        let past = ISO8601.string(from: world.gateway.clock.now().addingTimeInterval(-60))
        try await world.gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: student).status == .created)
            #expect(try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7036}"#, token: student).status == .created)
            let expired = try await client.json(
                .post, "/v1/admin/registration/students/\(id)/holds", body: "{\"code\":\"OLD\",\"reason\":\"Lapsed\",\"blocks\":[\"drop\"],\"until\":\"\(past)\"}",
                token: admin
            )
            #expect(expired.status == .created)
            let hold = try await client.json(
                .post, "/v1/admin/registration/students/\(id)/holds", body: #"{"code":"DEAN","reason":"See the dean","blocks":["drop"]}"#, token: admin
            )
            #expect(hold.status == .created)
            let drop = try await client.json(.delete, "/v1/me/registration/enrollments/7030", token: student)
            #expect(drop.status == .conflict && EligibilityWorld.rules(drop) == ["hold"])
            #expect(try await client.json(.delete, "/v1/me/registration/waitlist/7036", token: student).status == .conflict)
            #expect(try await client.json(.delete, "/v1/me/registration", token: student).status == .conflict)
            #expect(try await client.json(.get, "/registration/unregisterclass?\(sdsu)&courseid=7030").body == #"{"error":"Registration hold: See the dean (DEAN)"}"#)
            #expect(try await client.json(.get, "/registration/resetstudent?\(sdsu)").body == #"{"error":"Registration hold: See the dean (DEAN)"}"#)
            // Adds are not blocked by it.
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7031}"#, token: student).status == .created)
            let schedule = try await client.json(.get, "/v1/me/registration", token: student)
            #expect((schedule.object["enrollments"] as? [[String: Any]])?.compactMap { $0["classId"] as? Int } == [7030, 7031])
            #expect((schedule.object["waitlist"] as? [Any])?.count == 1)
            let holds = try await client.json(.get, "/v1/admin/registration/students/\(id)/holds", token: admin)
            #expect((holds.object["items"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["OLD", "DEAN"])
        }
    }

    @Test(arguments: TestBackend.all) func aSwapTakesTheNewSeatOrKeepsTheOld(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend)
        defer { world.gateway.cleanUp() }
        let student = world.student
        try await world.gateway.withRouter { client in
            func enrolled() async throws -> [Int] {
                let schedule = try await client.json(.get, "/v1/me/registration", token: student)
                return (schedule.object["enrollments"] as? [[String: Any]])?.compactMap { $0["classId"] as? Int } ?? []
            }
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7000}"#, token: student).status == .created)
            // Another section of the same course: no duplicate, since the first is dropped.
            let swapped = try await client.json(.post, "/v1/me/registration/swap", body: #"{"drop":7000,"add":7001}"#, token: student)
            #expect(swapped.status == .ok)
            #expect(try await enrolled() == [7001])
            // Into a full class: refused, and the student keeps the class they had.
            let refused = try await client.json(.post, "/v1/me/registration/swap", body: #"{"drop":7001,"add":7036}"#, token: student)
            #expect(refused.status == .conflict && refused.object["type"] as? String == "/problems/class-full")
            #expect(try await enrolled() == [7001])
            #expect(try await client.json(.post, "/v1/me/registration/swap", body: #"{"drop":7030,"add":7031}"#, token: student).status == .notFound)
            #expect(try await world.gateway.seats(of: 7000).enrolled == 96)
        }
    }

    @Test(arguments: TestBackend.all) func promotionSkipsAStudentNoLongerEligibleAndTellsThem(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend) { $0.waitlistPolicy = .auto }
        defer { world.gateway.cleanUp() }
        let gateway = world.gateway, service = gateway.registration
        let first = try await gateway.student("100000001"), second = try await gateway.student("100000002"), leaver = try await gateway.student("100000003")
        try await gateway.openSeats(1, in: 7030)
        try await service.enrollment.register(studentID: leaver, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: first, classID: 7030)
        _ = try await service.enrollment.joinWaitlist(studentID: second, classID: 7030)
        let admin = try await gateway.adminIdentity()
        _ = try await service.eligibility.placeHold(
            RegistrationHold(id: 0, code: "REG", reason: "Registration hold", blocks: [.add]), on: first, by: admin.accountID
        )
        try await service.enrollment.drop(studentID: leaver, classID: 7030)
        let firstSchedule = try await service.enrollment.schedule(studentID: first)
        let secondSchedule = try await service.enrollment.schedule(studentID: second)
        #expect(firstSchedule.enrollments.isEmpty && firstSchedule.waitlist.map(\.classID) == [7030])
        #expect(secondSchedule.enrollments.map(\.classID) == [7030])
        let skipped = try await gateway.jobs(kind: PushJobs.registrationSkipped.name)
        #expect(skipped.count == 1 && skipped.first?.args.contains("\"accountId\":\(first)") == true)
        #expect(skipped.first?.args.contains("Registration hold: Registration hold (REG)") == true)
    }

    @Test(arguments: TestBackend.all) func aGradeBelowAnInProgressPrerequisiteIsAnException(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend)
        defer { world.gateway.cleanUp() }
        let admin = world.admin, student = world.student, id = world.studentID
        try await world.gateway.withRouter { client in
            func record(_ grade: String) async throws {
                let body = "{\"level\":\"graduate\",\"standing\":\"graduate\",\"history\":[{\"course\":\"CS 310\",\"term\":\"2018-spring\",\"grade\":\"\(grade)\"}]}"
                #expect(try await client.json(.put, "/v1/admin/registration/students/\(id)/record", body: body, token: admin).status == .ok)
            }
            _ = try await client.json(
                .put, "/v1/admin/registration/requirements", body: #"{"term":"2018-fall","course":"CS 503","prerequisites":{"course":"CS 310","minGrade":"C"}}"#,
                token: admin
            )
            try await record("IP")
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: student).status == .created)
            try await record("D")
            let exceptions = try await client.json(.get, "/v1/admin/registration/prerequisite-exceptions?term=2018-fall", token: admin)
            let items = exceptions.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 1 && items.first?["classId"] as? Int == 7030 && items.first?["course"] as? String == "CS 503")
            // Told once; still enrolled.
            try await record("F")
            #expect(try await world.gateway.jobs(kind: PushJobs.prerequisiteUnmet.name).count == 1)
            let schedule = try await client.json(.get, "/v1/me/registration", token: student)
            #expect((schedule.object["enrollments"] as? [[String: Any]])?.count == 1)
            try await record("B")
            let cleared = try await client.json(.get, "/v1/admin/registration/prerequisite-exceptions?term=2018-fall", token: admin)
            #expect((cleared.object["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test(arguments: TestBackend.all) func aPromotionOrAClaimDropsTheClassNamedOnJoining(_ backend: TestBackend) async throws {
        for policy in [WaitlistPolicy.auto, .offer] {
            let world = try await EligibilityWorld.make(backend) { $0.waitlistPolicy = policy }
            let gateway = world.gateway, service = gateway.registration, student = world.student, id = world.studentID
            let leaver = try await gateway.student("100000001")
            try await gateway.openSeats(1, in: 7001)
            try await service.enrollment.register(studentID: leaver, classID: 7001)
            try await gateway.withRouter { client in
                #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7000}"#, token: student).status == .created)
                // Another section of the same course: allowed on the line, since 7000 goes when the seat comes.
                #expect(try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7001,"dropIfEnrolled":7031}"#, token: student).status == .notFound)
                let joined = try await client.json(.post, "/v1/me/registration/waitlist", body: #"{"classId":7001,"dropIfEnrolled":7000}"#, token: student)
                #expect(joined.status == .created)
                let line = try await client.json(.get, "/v1/me/registration", token: student)
                #expect((line.object["waitlist"] as? [[String: Any]])?.first?["dropIfEnrolled"] as? Int == 7000)
            }
            let before = try await gateway.seats(of: 7000).enrolled
            try await service.enrollment.drop(studentID: leaver, classID: 7001)
            if policy == .offer { try await service.enrollment.claimOffer(studentID: id, classID: 7001) }
            let schedule = try await service.enrollment.schedule(studentID: id)
            #expect(schedule.enrollments.map(\.classID) == [7001], "\(policy): in the new section only")
            #expect(schedule.waitlist.isEmpty)
            #expect(try await gateway.seats(of: 7000).enrolled == before - 1)
            world.gateway.cleanUp()
        }
    }
}
