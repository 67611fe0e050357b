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

/// Eligibility through the real router on both backends: what the registrar sets (records,
/// windows, requirements, the term's rules, the catalog import), every refusal with all its
/// reasons on v1 and the first on SDSU, the dry run, the student's status, and bad input.
/// Holds on drops, swaps, promotion and exceptions: ``EligibilitySeatMoveTests``.
@Suite("registration eligibility")
struct RegistrationEligibilityTests {
    @Test(arguments: TestBackend.all) func aRefusalGivesEveryReasonAndAnOverrideOrALiftedHoldClearsIt(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend)
        defer { world.gateway.cleanUp() }
        let admin = world.admin, student = world.student, id = world.studentID, sdsu = world.sdsu
        let opens = ISO8601.string(from: world.gateway.clock.now().addingTimeInterval(86_400))
        try await world.gateway.withRouter { client in
            let record = try await client.json(
                .put, "/v1/admin/registration/students/\(id)/record",
                body: #"{"level":"undergraduate","standing":"sophomore","majors":["MATH"],"history":[{"course":"CS 310","term":"2018-spring","grade":"C-"}]}"#,
                token: admin
            )
            #expect(record.status == .ok && record.object["standing"] as? String == "sophomore" && record.object["updatedBy"] != nil)
            let requirements = try await client.json(
                .put, "/v1/admin/registration/requirements",
                body: #"{"term":"2018-fall","course":"CS 503","prerequisites":{"all":[{"course":"CS 310","minGrade":"C"},{"any":[{"course":"MATH 245"},{"course":"MATH 254"}]}]},"restrictions":{"standings":["junior","senior"]}}"#,
                token: admin
            )
            #expect(requirements.status == .ok)
            let hold = try await client.json(
                .post, "/v1/admin/registration/students/\(id)/holds", body: #"{"code":"BURSAR","reason":"Unpaid balance","blocks":["add"]}"#, token: admin
            )
            #expect(hold.status == .created)
            let holdID = try #require(hold.object["id"] as? Int)
            let windows = try await client.json(
                .put, "/v1/admin/terms/2018-fall/registration-windows", body: "{\"windows\":[{\"standing\":\"sophomore\",\"opensAt\":\"\(opens)\"}]}",
                token: admin
            )
            #expect(windows.status == .ok && (windows.object["windows"] as? [Any])?.count == 1)

            let refused = try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: student)
            #expect(refused.status == .conflict && refused.object["type"] as? String == "/problems/registration-ineligible")
            #expect(EligibilityWorld.rules(refused) == ["hold", "window", "prerequisite", "restriction"])
            let reasons = refused.object["reasons"] as? [[String: Any]] ?? []
            #expect((reasons.first?["hold"] as? [String: Any])?["code"] as? String == "BURSAR")
            #expect(reasons.first?["message"] as? String == "Registration hold: Unpaid balance (BURSAR)")
            // Only the unmet part: CS 310 with C (C- is below it), and the whole `any`.
            let missing = reasons.count > 2 ? reasons[2]["missing"] as? [String: Any] : nil
            #expect((missing?["all"] as? [[String: Any]])?.first?["course"] as? String == "CS 310")
            #expect((missing?["all"] as? [[String: Any]])?.first?["minGrade"] as? String == "C")

            // SDSU: the first reason's message.
            let sdsuRefused = try await client.json(.get, "/registration/registerclass?\(sdsu)&courseid=7030")
            #expect(sdsuRefused.body == #"{"error":"Registration hold: Unpaid balance (BURSAR)"}"#)

            // The dry run says the same and changes nothing.
            let check = try await client.json(.post, "/v1/me/registration/check", body: #"{"classIds":[7030,7031,999999]}"#, token: student)
            let items = check.object["items"] as? [[String: Any]] ?? []
            #expect(items.count == 3)
            #expect(items.first?["eligible"] as? Bool == false)
            #expect((items.first?["reasons"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } == ["hold", "window", "prerequisite", "restriction"])
            #expect((items.dropFirst().first?["reasons"] as? [[String: Any]])?.compactMap { $0["rule"] as? String } == ["hold", "window"])
            #expect(items.last?["status"] as? String == "not-found")
            #expect(try await world.gateway.seats(of: 7030).enrolled == 22)

            // The student sees their hold and window.
            let status = try await client.json(.get, "/v1/me/registration/eligibility?term=2018-fall", token: student)
            #expect((status.object["holds"] as? [[String: Any]])?.first?["code"] as? String == "BURSAR")
            #expect((status.object["window"] as? [String: Any])?["appliesBy"] as? String == "standing")
            #expect((status.object["window"] as? [String: Any])?["open"] as? Bool == false)

            // Overrides let them past the rules they name; a hold is lifted, not overridden.
            let override = try await client.json(
                .post, "/v1/admin/registration/students/\(id)/overrides", body: #"{"classId":7030,"rules":["window","prerequisite","restriction"]}"#,
                token: admin
            )
            #expect(override.status == .created)
            let stillHeld = try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: student)
            #expect(EligibilityWorld.rules(stillHeld) == ["hold"])
            #expect(try await client.json(.delete, "/v1/admin/registration/students/\(id)/holds/\(holdID)", token: admin).status == .noContent)
            #expect(try await client.json(.delete, "/v1/admin/registration/students/\(id)/holds/\(holdID)", token: admin).status == .notFound)
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7030}"#, token: student).status == .created)

            // Students don't reach the registrar's routes.
            #expect(try await client.json(.get, "/v1/admin/registration/students/\(id)/holds", token: student).status == .forbidden)
            #expect(try await client.json(.get, "/v1/admin/registration/students/\(id)/record").status == .unauthorized)
        }
    }

    @Test(arguments: TestBackend.all) func gradesCorequisitesUnitsAndDuplicates(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend) { $0.classLimit = 6 }
        defer { world.gateway.cleanUp() }
        let admin = world.admin, student = world.student, id = world.studentID
        // The term refuses a second section of a course (off by default, as SDSU allows it).
        var term = DemoTerms.all[0]
        term.refuseDuplicateCourses = true
        _ = try await world.gateway.catalog.terms.put(id: term.id, term)
        try await world.gateway.withRouter { client in
            func put(record history: String, maxUnits: Int = 9) async throws {
                let reply = try await client.json(
                    .put, "/v1/admin/registration/students/\(id)/record",
                    body: "{\"level\":\"graduate\",\"standing\":\"graduate\",\"majors\":[\"CS\"],\"maxUnits\":\(maxUnits),\"history\":[\(history)]}", token: admin
                )
                #expect(reply.status == .ok)
            }
            func enroll(_ classID: Int) async throws -> HTTPReply {
                try await client.json(.post, "/v1/me/registration/enrollments", body: "{\"classId\":\(classID)}", token: student)
            }
            let requirements = try await client.json(
                .put, "/v1/admin/registration/requirements",
                body: #"{"term":"2018-fall","course":"cs  503","prerequisites":{"course":"CS 310","minGrade":"C"},"corequisites":["CS 514"]}"#, token: admin
            )
            #expect(requirements.status == .ok)
            let read = try await client.json(.get, "/v1/admin/registration/requirements?term=2018-fall&course=CS%20503", token: admin)
            #expect((read.object["corequisites"] as? [String]) == ["CS 514"])

            // W never satisfies; the corequisite is neither passed nor taken.
            try await put(record: #"{"course":"CS 310","term":"2018-spring","grade":"W"}"#)
            #expect(EligibilityWorld.rules(try await enroll(7030)) == ["prerequisite", "corequisite"])
            // P satisfies a minimum of C; IP satisfies any; enrolled in CS 514 meets the corequisite.
            try await put(record: #"{"course":"CS 310","term":"2018-spring","grade":"P"},{"course":"CS 514","term":"2018-fall","grade":"IP"}"#)
            #expect(try await enroll(7030).status == .created)
            try await put(record: #"{"course":"CS 310","term":"2018-spring","grade":"IP"}"#)
            #expect(try await enroll(7031).status == .created)
            // Dropping CS 514 would leave CS 503's corequisite unmet (the IP of CS 514 is gone).
            let drop = try await client.json(.delete, "/v1/me/registration/enrollments/7031", token: student)
            #expect(drop.status == .conflict && EligibilityWorld.rules(drop) == ["corequisite"])
            // Units: 6 of 9 taken; CS 100 makes 9, another section of it is a duplicate and 12,
            #expect(try await enroll(7000).status == .created)
            let duplicate = try await enroll(7001)
            // (and CS 100-02 meets when CS 514 does)
            #expect(EligibilityWorld.rules(duplicate) == ["max-units", "duplicate-course", "time-conflict"])
            #expect((duplicate.object["reasons"] as? [[String: Any]])?.first?["limit"] as? Double == 9)
        }
    }

    @Test func badInputIsRefusedWithTheField() async throws {
        let world = try await EligibilityWorld.make(.sqlite)
        defer { world.gateway.cleanUp() }
        let admin = world.admin, id = world.studentID, student = world.student
        try await world.gateway.withRouter { client in
            let grade = try await client.json(
                .put, "/v1/admin/registration/students/\(id)/record", body: #"{"level":"undergraduate","standing":"junior","history":[{"course":"CS 1","term":"x","grade":"Z"}]}"#,
                token: admin
            )
            #expect(grade.status == .unprocessableContent || grade.status == .badRequest)
            let windows = try await client.json(
                .put, "/v1/admin/terms/2018-fall/registration-windows",
                body: #"{"windows":[{"opensAt":"2018-11-05T08:00:00Z","closesAt":"2018-11-01T08:00:00Z"}]}"#, token: admin
            )
            #expect(windows.status == .unprocessableContent)
            #expect(try await client.json(.put, "/v1/admin/terms/nope/registration-windows", body: #"{"windows":[]}"#, token: admin).status == .unprocessableContent)
            let many = (1...51).map(String.init).joined(separator: ",")
            #expect(try await client.json(.post, "/v1/me/registration/check", body: "{\"classIds\":[\(many)]}", token: student).status == .unprocessableContent)
            #expect(try await client.json(.post, "/v1/admin/registration/students/999999/holds", body: #"{"code":"X","reason":"y","blocks":["add"]}"#, token: admin).status == .notFound)
        }
    }

    /// The native catalog file may carry a course's requirements; the import sets them for the
    /// terms it has classes of the course in, and a malformed one refuses the import.
    @Test(arguments: TestBackend.all) func aCatalogImportCarriesRequirements(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend)
        defer { world.gateway.cleanUp() }
        let admin = world.admin
        @Sendable func file(_ requirements: String) -> String {
            #"{"term":"2018-fall","subjects":[{"id":8,"code":"CS","title":"Computer Science","college":"Science"}],"#
                + #""courses":[{"subject":"CS","number":"577","title":"PRINCIPLES OS","units":"3.0","requirements":\#(requirements)}],"#
                + #""classes":[{"id":7900,"subject":"CS","course":"577","section":"01","scheduleNumber":"29900","instructors":["A"],"#
                + #""meetingType":"Lecture","seats":10,"enrolled":0,"waitlist":0,"meetings":[]}]}"#
        }
        try await world.gateway.withRouter { client in
            let refused = try await client.json(.post, "/v1/admin/registration/imports?format=native", body: file(#"{"prerequisites":{"course":"CS 310","minGrade":"Z"}}"#), token: admin)
            #expect(refused.status == .unprocessableContent)
            let imported = try await client.json(
                .post, "/v1/admin/registration/imports?format=native",
                body: file(#"{"prerequisites":{"course":"CS 370","minGrade":"C"},"restrictions":{"levels":["undergraduate"]}}"#), token: admin
            )
            #expect(imported.status == .ok, "\(imported.body)")
            let read = try await client.json(.get, "/v1/admin/registration/requirements?term=2018-fall&course=CS%20577", token: admin)
            #expect((read.object["prerequisites"] as? [String: Any])?["course"] as? String == "CS 370")
            #expect(read.object["updatedBy"] as? Int != nil)
        }
    }

    /// Without the term's `refuseDuplicateCourses`, a second section of a course is allowed,
    /// as the SDSU protocol always allowed it.
    @Test func aSecondSectionIsAllowedUnlessTheTermRefusesIt() async throws {
        let world = try await EligibilityWorld.make(.sqlite)
        defer { world.gateway.cleanUp() }
        let sdsu = world.sdsu
        try await world.gateway.withRouter { client in
            let first = try await client.json(.get, "/registration/registerclass?\(sdsu)&courseid=7000")
            let second = try await client.json(.get, "/registration/registerclass?\(sdsu)&courseid=7001")
            #expect(first.body == #"{"ok":"Course added"}"# && second.body == #"{"ok":"Course added"}"#)
        }
    }

    /// The most specific window applies: the student's own, then their standing's, then the one
    /// for everyone; and the term's unit limit holds for a student with no record.
    @Test(arguments: TestBackend.all) func windowsByAccountThenStandingThenEveryoneAndTheTermsUnitLimit(_ backend: TestBackend) async throws {
        let world = try await EligibilityWorld.make(backend)
        defer { world.gateway.cleanUp() }
        let gateway = world.gateway, admin = world.admin, student = world.student, id = world.studentID
        let other = try await gateway.account("grace", role: .student)
        let now = gateway.clock.now()
        let past = ISO8601.string(from: now.addingTimeInterval(-86_400)), soon = ISO8601.string(from: now.addingTimeInterval(3_600))
        let closed = ISO8601.string(from: now.addingTimeInterval(-60))
        try await gateway.withRouter { client in
            _ = try await client.json(
                .put, "/v1/me/registration/profile", body: #"{"redId":"822326004","firstName":"Grace","lastName":"Hopper","email":"g@sdsu.edu"}"#, token: other
            )
            _ = try await client.json(.put, "/v1/admin/registration/students/\(id)/record", body: #"{"level":"undergraduate","standing":"junior"}"#, token: admin)
            func windows(_ body: String) async throws {
                #expect(try await client.json(.put, "/v1/admin/terms/2018-fall/registration-windows", body: body, token: admin).status == .ok)
            }
            func enroll(_ token: String, _ classID: Int) async throws -> HTTPReply {
                try await client.json(.post, "/v1/me/registration/enrollments", body: "{\"classId\":\(classID)}", token: token)
            }
            try await windows("""
                {"windows":[{"accountIds":[\(id)],"opensAt":"\(soon)"},{"standing":"junior","opensAt":"\(past)"},{"opensAt":"\(past)","closesAt":"\(closed)"}]}
                """)
            // Ada's own window (opening soon) wins over her standing's (open).
            let own = try await enroll(student, 7030)
            #expect(EligibilityWorld.rules(own) == ["window"] && (own.object["reasons"] as? [[String: Any]])?.first?["opensAt"] as? String == soon)
            // Grace has no record: the window for everyone, which has closed.
            let everyone = try await enroll(other, 7030)
            #expect(EligibilityWorld.rules(everyone) == ["window"] && (everyone.object["reasons"] as? [[String: Any]])?.first?["closed"] as? Bool == true)
            // Without Ada's own, her standing's window applies and is open.
            try await windows("{\"windows\":[{\"standing\":\"junior\",\"opensAt\":\"\(past)\"},{\"opensAt\":\"\(past)\",\"closesAt\":\"\(closed)\"}]}")
            #expect(try await enroll(student, 7030).status == .created)
            // No windows at all: open to everyone again; the term's unit limit of 3 still holds.
            try await windows(#"{"windows":[]}"#)
            var term = DemoTerms.all[0]
            term.maxUnits = 3
            _ = try await gateway.catalog.terms.put(id: term.id, term)
            #expect(try await enroll(other, 7030).status == .created)
            let over = try await enroll(other, 7031)
            #expect(EligibilityWorld.rules(over) == ["max-units"] && (over.object["reasons"] as? [[String: Any]])?.first?["units"] as? Double == 6)
        }
    }
}
