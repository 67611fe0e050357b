import Contracts
import Foundation
import GatewayCore
@testable import Gradebook
import GradebookSimulator
import GradebookTestSupport
import Jobs
import Logging
import Testing
import TestSupport

/// Reading a Moodle account's grades through the real router on both backends, against the
/// stand-in: every function's fields mapped, hidden items and ungraded scores, courses without
/// grades, a refused token (needs-student, told once), other exceptions, the bounds, polls'
/// notifications, and the `wstoken` absent from everything the gateway writes.
@Suite("Moodle: my grades")
struct MoodleGradesTests {
    @Test(arguments: TestBackend.all) func everyFunctionsFieldsAreMappedAndNothingHiddenIsShown(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            let account = try await world.connect()
            let asked = world.functions.count
            let item = try await world.grades()
            #expect(item["accountId"] as? Int == Int(account) && item["sourceId"] as? Int == 9 && item["status"] as? String == "ok")
            #expect(Array(world.functions.dropFirst(asked)) == [
                "core_webservice_get_site_info", "core_enrol_get_users_courses", "gradereport_overview_get_course_grades",
                "gradereport_user_get_grade_items", "gradereport_user_get_grade_items",
            ], "no grade items asked of the course whose gradebook is hidden")
            #expect(MoodleWorld.courses(item).count == 3)
            let history = try MoodleWorld.course(item, "HIST 101")
            #expect(history["name"] as? String == "History of the Americas")
            #expect(history["currentScore"] as? Double == 85, "51 of 60: the visible graded items only")
            #expect(history["currentGrade"] as? String == "51.00", "the overview's course total")
            #expect(history["gradesWithheld"] is NSNull)
            let assignments = MoodleWorld.assignments(history)
            #expect(assignments.map { $0["name"] as? String } == ["Essay 1", "Quiz 1", "Final exam"], "hidden grades, hidden items and the total are not assignments")
            let essay = try #require(assignments.first)
            #expect(essay["id"] as? String == "3011" && essay["score"] as? Double == 42 && essay["pointsPossible"] as? Double == 50)
            #expect(essay["feedback"] as? String == "A strong thesis; cite two more sources.")
            #expect(essay["state"] as? String == "graded" && essay["gradedAt"] is String)
            let final = try #require(assignments.last)
            #expect(final["score"] is NSNull, "ungraded is null, never 0")
            #expect(final["state"] as? String == "unsubmitted" && final["feedback"] is NSNull)
            let text = try await world.gradesText()
            #expect(!text.contains("Participation") && !text.contains("Extra credit"), "never a sign of a hidden item")
            let physics = try MoodleWorld.course(item, "PHYS 121")
            #expect(physics["gradesWithheld"] as? String == "hidden-by-teacher" && MoodleWorld.assignments(physics).isEmpty)
            let drawing = try MoodleWorld.course(item, "ART 110")
            #expect(drawing["gradesWithheld"] as? String == "not-permitted" && MoodleWorld.assignments(drawing).isEmpty)
            #expect(drawing["currentGrade"] is NSNull)
        }
    }

    @Test(arguments: TestBackend.all) func gradeItemsAreKeptAndARefreshAsksAtMostOnceAMinute(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            _ = try await world.connect()
            _ = try await world.grades()
            world.moodle.setGrade(student: 3, item: 3012, .init(raw: 9, hidden: true))
            let count = { world.functions.filter { $0 == "gradereport_user_get_grade_items" }.count }
            let before = count()
            let soon = try await world.grades()
            #expect(count() == before, "a second refresh within the minute reads the kept answer (Moodle regrades on each call)")
            #expect(MoodleWorld.assignments(try MoodleWorld.course(soon, "HIST 101")).count == 3)
            world.later()
            let after = try await world.grades()
            #expect(count() == before + 2)
            #expect(MoodleWorld.assignments(try MoodleWorld.course(after, "HIST 101")).map { $0["name"] as? String } == ["Essay 1", "Final exam"], "a grade hidden later goes")
        }
    }

    enum Refusal: String, CaseIterable, Sendable { case invalidtoken, accessexception }

    @Test(arguments: TestBackend.all, Refusal.allCases) func aRefusedTokenNeedsTheStudentWhoIsToldOnce(_ backend: TestBackend, _ refusal: Refusal) async throws {
        try await MoodleWorld.with(backend) { world in
            let account = try await world.connect()
            #expect(try await world.grades()["status"] as? String == "ok")
            switch refusal {
            case .invalidtoken: world.moodle.revoke(token: MoodleWorld.token)
            case .accessexception: world.moodle.setServiceEnabled(false)
            }
            world.later()
            let refused = try await world.grades()
            #expect(refused["status"] as? String == "credentials-refused")
            #expect(MoodleWorld.courses(refused).count == 3, "the last good courses stay")
            #expect(try await world.accounts().first?["status"] as? String == "needs-student")
            let asked = world.moodle.requests.count
            world.later()
            #expect(try await world.grades()["status"] as? String == "credentials-refused")
            let outcome = try await world.gateway.module.poller.run(GradebookJobs.PollAccount(gradebookAccountId: account))
            guard case .cancel = outcome else { Issue.record("a poll of a refused account stops, got \(outcome)"); return }
            #expect(world.moodle.requests.count == asked, "a refused token is not sent again")
            let notices = try await world.gateway.jobs.service.list(kind: GradebookJobs.accountNeedsStudent.name)
            #expect(notices.count == 1, "told once")
            #expect(!"\(notices.map(\.args))".contains(MoodleWorld.token))

            // The student connects again: the same account works again.
            world.moodle.setServiceEnabled(true)
            world.moodle.update { $0.students[0].tokens = ["n3wm00dle70ken000000000000000002"] }
            #expect(try await world.connect() == account, "renewed in place")
            #expect(try await world.accounts().first?["status"] as? String == "ok")
            #expect(try await world.grades()["status"] as? String == "ok")
        }
    }

    @Test(arguments: TestBackend.all) func anotherExceptionIsASourceErrorWithTheLastGoodAnswer(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            let account = try await world.connect()
            let good = try await world.grades()
            world.moodle.fail("core_enrol_get_users_courses", with: "generalexceptionmessage", count: 2)
            let failed = try await world.grades()
            #expect(failed["status"] as? String == "unavailable")
            #expect(failed["fetchedAt"] as? String == good["fetchedAt"] as? String)
            #expect(MoodleWorld.courses(failed).count == 3)
            let outcome = try await world.gateway.module.poller.run(GradebookJobs.PollAccount(gradebookAccountId: account))
            guard case .retry(_, let message) = outcome else { Issue.record("a failing source retries, got \(outcome)"); return }
            #expect(message.contains("generalexceptionmessage"), "\(message)")
            let health = try await world.gateway.module.sources.health().0[9]
            #expect(health?.lastError?.contains("generalexceptionmessage") == true)
            #expect(health?.lastError?.contains(MoodleWorld.token) == false)
            #expect(try await world.accounts().first?["status"] as? String == "ok", "the account is fine")
        }
    }

    @Test(arguments: TestBackend.all) func atMostAHundredCoursesAndTwoThousandItems(_ backend: TestBackend) async throws {
        var data = MoodleSimData.demo()
        data.courses = (1...120).map { n in
            MoodleSimData.Course(id: Int64(n), shortname: "C\(n)", fullname: "Course \(n)", items: (1...21).map { MoodleSimData.Item(id: Int64(n * 100 + $0), name: "Item \($0)", grademax: 10) })
        }
        data.students[0].courseIDs = (1...120).map(Int64.init)
        data.grades = [:] // the demo's grades (one hidden) would land on course 30's item ids
        let moodle = MoodleSimulator(data: data)
        try await MoodleWorld.with(backend, moodle: moodle) { world in
            _ = try await world.connect()
            // Read through the service: a hundred calls take longer than the test client waits on a loaded machine.
            let item = try #require(try await world.gateway.module.myGrades.grades(of: 1, refresh: true).first)
            #expect(item.status == .ok)
            #expect(item.courses.count == 100)
            #expect(item.courses.flatMap(\.assignments).count == 2_000, "21 items in each of 100 courses, cut at 2,000")
            let counts = item.courses.map(\.assignments.count)
            #expect(counts.prefix(95).allSatisfy { $0 == 21 } && counts[95] == 5 && counts.suffix(4).allSatisfy { $0 == 0 }, "\(counts)")
            #expect(world.functions.filter { $0 == "gradereport_user_get_grade_items" }.count == 100, "no course past the bound is asked")
        }
    }

    @Test(arguments: TestBackend.all) func anAnswerOverItsSizeBoundIsASourceFailure(_ backend: TestBackend) async throws {
        var data = MoodleSimData.demo()
        data.courses[0].items = (1...12_000).map { MoodleSimData.Item(id: Int64(900_000 + $0), name: "Item \($0)", grademax: 10) }
        let moodle = MoodleSimulator(data: data)
        try await MoodleWorld.with(backend, moodle: moodle) { world in
            _ = try await world.connect()
            let item = try await world.grades()
            #expect(item["status"] as? String == "unavailable", "a grade items answer over 4 MiB is not read")
            #expect(MoodleWorld.courses(item).isEmpty)
        }
    }

    @Test(arguments: TestBackend.all) func aPollNotifiesEachNewGradeOnceNamingCourseAndItem(_ backend: TestBackend) async throws {
        try await MoodleWorld.with(backend) { world in
            let account = try await world.connect()
            let poll = GradebookJobs.PollAccount(gradebookAccountId: account)
            let kind = GradebookJobs.accountGradeChanged.name
            _ = try await world.gateway.module.poller.run(poll)
            world.later()
            _ = try await world.gateway.module.poller.run(poll)
            #expect(try await world.gateway.jobs.service.list(kind: kind).isEmpty, "the first poll records; nothing changed since")
            world.moodle.setGrade(student: 3, item: 3013, .init(raw: 88))
            world.later()
            _ = try await world.gateway.module.poller.run(poll)
            let jobs = try await world.gateway.jobs.service.list(kind: kind)
            let texts = jobs.map { "\($0.args)" }
            #expect(texts.contains { $0.contains("Final exam") && $0.contains("HIST 101") && $0.contains("88/100") }, "\(texts)")
            #expect(texts.contains { $0.contains("Current grade") && $0.contains("139.00") }, "the course total moved too: \(texts)")
            #expect(jobs.count == 2, "\(texts)")
            #expect(!texts.contains { $0.contains(MoodleWorld.token) })
            world.later()
            _ = try await world.gateway.module.poller.run(poll)
            #expect(try await world.gateway.jobs.service.list(kind: kind).count == 2, "nothing new, nothing sent")
        }
    }

    @Test(arguments: TestBackend.all) func theTokenIsInNoLogLineProblemOrJob(_ backend: TestBackend) async throws {
        let logs = CapturedLogs()
        let moodle = MoodleSimulator()
        try await MoodleWorld.with(backend, moodle: moodle, logger: CapturedLogs.logger(logs, level: .trace)) { world in
            let account = try await world.connect()
            _ = try await world.grades()
            world.moodle.fail("gradereport_user_get_grade_items", with: "generalexceptionmessage", count: 10)
            world.later()
            let failed = try await world.gradesText()
            world.later()
            _ = try await world.gateway.module.poller.run(GradebookJobs.PollAccount(gradebookAccountId: account))
            world.moodle.revoke(token: MoodleWorld.token)
            world.later()
            let refused = try await world.gradesText()
            let (_, problem) = try await world.post(#"{"sourceId": 9, "accessToken": "\#(MoodleWorld.token)"}"#)
            #expect(world.moodle.requests.allSatisfy { $0.path == "login/token.php" || $0.hadToken }, "the token went to Moodle")
            let lines = logs.all
            #expect(lines.contains { $0.contains("outbound request") }, "the client logged its requests: \(lines.count) lines")
            for text in lines + [failed, refused, problem] {
                #expect(!text.contains(MoodleWorld.token), "\(text)")
                #expect(!text.contains("wstoken="), "\(text)")
                #expect(!text.contains("moodle-demo"), "the password: \(text)")
            }
            let jobs = try await world.gateway.jobs.service.list(kind: GradebookJobs.accountNeedsStudent.name)
            #expect(!"\(jobs)".contains(MoodleWorld.token))
            let lastError = try #require(try await world.gateway.module.sources.health().0[9]?.lastError)
            #expect(lastError.contains("gradereport_user_get_grade_items") && !lastError.contains(MoodleWorld.token), "\(lastError)")
        }
    }
}
