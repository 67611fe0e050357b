import Auth
import AuthTestSupport
import Catalog
import Contracts
import Logging
import Foundation
import GatewayCore
import GRDB
import NIOCore
import Storage
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// The Scheduling module alone on a router (``SchedulingGateway``), on either backend: builds, saved
/// schedules with their owners, calendar downloads and the subscription feed.
@Suite("Scheduling over HTTP")
struct SchedulingRoutesTests {
    /// Two courses of the fixtures catalog with several sections each, in one term.
    static func twoCourses(_ gateway: SchedulingGateway) async throws -> (term: String, courses: [String], classIDs: [Int64]) {
        let snapshot = try await gateway.catalog.catalog.snapshot()
        var byCourse: [String: [CatalogClass]] = [:]
        for item in snapshot.index.classes where item.meetings.contains(where: \.isScheduled) {
            byCourse[item.term + "|" + item.courseLabel, default: []].append(item)
        }
        let picked = byCourse.filter { $0.value.count >= 2 }.sorted { $0.key < $1.key }.prefix(2)
        let term = picked.first!.value[0].term
        return (term, picked.map { $0.value[0].courseLabel }, picked.flatMap { $0.value.map(\.id) })
    }

    static let profile = #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#

    @Test(arguments: TestBackend.all) func anyoneBuildsAndIdenticalRequestsGetIdenticalAnswers(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, courses, _) = try await Self.twoCourses(gateway)
        let body = #"{"term": "\#(term)", "courses": ["\#(courses[0])", {"course": "\#(courses[1].replacingOccurrences(of: " ", with: ""))"}], "limit": 5}"#
        try await gateway.withRouter { client in
            let first = try await client.json(.post, "/v1/scheduling/builds", body: body)
            #expect(first.status == .ok)
            let second = try await client.json(.post, "/v1/scheduling/builds", body: body)
            #expect(first.body == second.body)
            let object = first.object
            let schedules = object["schedules"] as? [[String: Any]] ?? []
            #expect(!schedules.isEmpty)
            #expect((object["count"] as? Int ?? 0) >= schedules.count)
            #expect(object["countIsExact"] as? Bool == true)
            let sections = schedules.first?["sections"] as? [[String: Any]] ?? []
            #expect(Set(sections.compactMap { $0["course"] as? String }) == Set(courses))
            let breakdown = schedules.first?["breakdown"] as? [String: Any]
            #expect((breakdown?["components"] as? [String: Any])?.keys.sorted() == ["days", "earlierEnd", "gaps", "gpa", "laterStart", "rating"])
        }
    }

    @Test(arguments: TestBackend.all) func badRequestsNameTheirField(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, courses, _) = try await Self.twoCourses(gateway)
        let cases: [(String, String)] = [
            (#"{"term": "\#(term)", "courses": ["NOPE 999"]}"#, "courses[0]"),
            (#"{"term": "\#(term)", "courses": ["not a course"]}"#, "courses[0]"),
            (#"{"term": "1999-never", "courses": ["\#(courses[0])"]}"#, "term"),
            (#"{"term": "\#(term)", "courses": ["\#(courses[0])"], "blocked": [{"days": "XYZ"}]}"#, "blocked[0].days"),
            (#"{"term": "\#(term)", "courses": ["\#(courses[0])"], "blocked": [{"days": "MWF", "start": "1300", "end": "1200"}]}"#, "blocked[0].end"),
            (#"{"term": "\#(term)", "courses": ["\#(courses[0])"], "limit": 201}"#, "limit"),
            (#"{"term": "\#(term)", "courses": ["\#(courses[0])"], "weights": {"gpa": -1}}"#, "weights.gpa"),
            (#"{"term": "\#(term)", "courses": ["\#(courses[0])"], "pinned": [999999]}"#, "pinned[0]"),
            (#"{"term": "\#(term)", "courses": ["\#(courses[0])", "\#(courses[0])"]}"#, "courses[1]"),
        ]
        try await gateway.withRouter { client in
            for (body, field) in cases {
                let reply = try await client.json(.post, "/v1/scheduling/builds", body: body)
                #expect(reply.status == .unprocessableContent, "\(body)")
                #expect(reply.contentType == "application/problem+json")
                #expect(reply.object["invalidFields"] as? [String] == [field], "\(body)")
            }
        }
    }

    @Test(arguments: TestBackend.all) func nothingFitsAnswersWithAnExplanation(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, courses, _) = try await Self.twoCourses(gateway)
        let body = #"{"term": "\#(term)", "courses": ["\#(courses[0])"], "blocked": [{"days": "MTWThFSSu"}]}"#
        try await gateway.withRouter { client in
            let reply = try await client.json(.post, "/v1/scheduling/builds", body: body)
            #expect(reply.status == .ok)
            #expect((reply.object["schedules"] as? [Any])?.isEmpty == true)
            let explanation = reply.object["explanation"] as? [String: Any]
            #expect(explanation?["courses"] as? [String] == [courses[0]])
            let constraints = explanation?["constraints"] as? [[String: Any]]
            #expect(constraints?.first?["kind"] as? String == "blocked")
            #expect((explanation?["message"] as? String)?.isEmpty == false)
        }
    }

    @Test(arguments: TestBackend.all) func buildsAreRateLimitedPerAddress(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend, buildsPerMinute: 2)
        defer { gateway.cleanUp() }
        let (term, courses, _) = try await Self.twoCourses(gateway)
        let body = #"{"term": "\#(term)", "courses": ["\#(courses[0])"]}"#
        try await gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/scheduling/builds", body: body).status == .ok)
            #expect(try await client.json(.post, "/v1/scheduling/builds", body: body).status == .ok)
            let third = try await client.json(.post, "/v1/scheduling/builds", body: body)
            #expect(third.status == .tooManyRequests)
            #expect(third.headers[.retryAfter] != nil)
        }
    }

    @Test(arguments: TestBackend.all) func savedSchedulesBelongToTheirOwner(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, _, ids) = try await Self.twoCourses(gateway)
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client in
            #expect(try await client.json(.get, "/v1/me/schedules").status == .unauthorized)
            let created = try await client.json(
                .post, "/v1/me/schedules", body: #"{"name": "Plan A", "term": "\#(term)", "classIds": [\#(ids[0])]}"#, token: ada
            )
            #expect(created.status == .created)
            let id = created.object["id"] as? Int ?? 0
            #expect(created.headers[.location] == "/v1/me/schedules/\(id)")
            let read = try await client.json(.get, "/v1/me/schedules/\(id)", token: ada)
            // The detail is the summary's fields and the sections.
            #expect(read.object["id"] as? Int == id && read.object["name"] as? String == "Plan A" && read.object["term"] as? String == term)
            #expect(read.object["classIds"] as? [Int] == [Int(ids[0])] && read.object["createdAt"] is String && read.object["updatedAt"] is String)
            let section = (read.object["sections"] as? [[String: Any]])?.first
            #expect(["open", "full", "waitlist"].contains(section?["status"] as? String ?? ""))
            #expect((section?["seats"] as? [String: Any])?["capacity"] != nil)

            // Bob sees none of it, and cannot change or delete it.
            #expect((try await client.json(.get, "/v1/me/schedules", token: bob).object["items"] as? [Any])?.isEmpty == true)
            #expect(try await client.json(.get, "/v1/me/schedules/\(id)", token: bob).status == .notFound)
            #expect(try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"name": "Mine"}"#, token: bob).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)", token: bob).status == .notFound)
            #expect(try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: bob).status == .notFound)

            let renamed = try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"name": "Plan B"}"#, token: ada)
            #expect(renamed.object["name"] as? String == "Plan B")
            let bad = try await client.json(.post, "/v1/me/schedules", body: #"{"name": "X", "term": "\#(term)", "classIds": [424242]}"#, token: ada)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.object["invalidFields"] as? [String] == ["classIds[0]"])
            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)", token: ada).status == .noContent)
            #expect(try await client.json(.get, "/v1/me/schedules/\(id)", token: ada).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.all) func savedScheduleDownloadsAsCalendarWithValidators(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, _, ids) = try await Self.twoCourses(gateway)
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client in
            let created = try await client.json(
                .post, "/v1/me/schedules", body: #"{"name": "Plan A", "term": "\#(term)", "classIds": [\#(ids[0])]}"#, token: ada
            )
            let id = created.object["id"] as? Int ?? 0
            // No calendar for a term an admin has not defined.
            let missing = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada)
            #expect(missing.status == .conflict)
            _ = try await gateway.catalog.terms.seed(DemoTerms.all + [Self.term(term)])
            let calendar = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada)
            #expect(calendar.status == .ok)
            #expect(calendar.contentType == "text/calendar; charset=utf-8")
            #expect(calendar.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"plan-a") == true)
            #expect(calendar.body.hasPrefix("BEGIN:VCALENDAR\r\n"))
            #expect(calendar.body.contains("BEGIN:VTIMEZONE"))
            #expect(calendar.body.contains("BEGIN:VEVENT"))
            let etag = try #require(calendar.headers[.eTag])
            let again = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified, "first:\n\(calendar.body)\nsecond:\n\(again.body)")
            #expect(again.body.isEmpty)
        }
    }


    @Test(arguments: TestBackend.all) func adminsImportRatingsAndBuildsUseThem(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("ada", role: .student)
        let csv = "course,average_gpa\nCS 108,3.4\nASTR 101,5.5\n"
        try await gateway.withRouter { client in
            let refused = try await client.execute(uri: "/v1/admin/scheduling/ratings", method: .post, headers: [.authorization: "Bearer \(student)", .contentType: "text/csv"], body: ByteBuffer(string: csv)) { $0.status }
            #expect(refused == .forbidden)
            let imported = try await client.execute(uri: "/v1/admin/scheduling/ratings", method: .post, headers: [.authorization: "Bearer \(admin)", .contentType: "text/csv"], body: ByteBuffer(string: csv)) { response in
                String(buffer: response.body)
            }
            let object = try JSONSerialization.jsonObject(with: Data(imported.utf8)) as? [String: Any]
            #expect(object?["courses"] as? Int == 1)
            #expect((object?["rejected"] as? [[String: Any]])?.first?["row"] as? String == "line 3")
            let counts = try await client.json(.get, "/v1/admin/scheduling/ratings", token: admin)
            #expect(counts.object["courses"] as? Int == 1)
            let garbage = try await client.json(.post, "/v1/admin/scheduling/ratings", body: "[1, 2]", token: admin)
            #expect(garbage.status == .unprocessableContent)
        }
    }

    /// A calendar for a catalog term the demo terms may not cover.
    static func term(_ id: String) -> Term {
        Term(id: id, name: "Term \(id)", firstDay: CivilDate(year: 2030, month: 1, day: 14)!, lastDay: CivilDate(year: 2030, month: 5, day: 3)!, timeZone: "America/Los_Angeles")
    }

    /// `eligibleOnly`: a signed-in student's build leaves out the sections Registration says they
    /// may not take, and lists them with the rules; without a token it is refused.
    @Test(arguments: TestBackend.all) func anEligibleOnlyBuildLeavesOutWhatTheStudentMayNotTake(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, courses, _) = try await Self.twoCourses(gateway)
        let token = try await gateway.account("ada", role: .student)
        let ada = try #require(try await gateway.accountID("ada"))
        let body = { @Sendable (eligibleOnly: Bool) in #"{"term": "\#(term)", "courses": ["\#(courses[0])", "\#(courses[1])"], "limit": 50, "eligibleOnly": \#(eligibleOnly)}"# }
        try await gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/scheduling/builds", body: body(true)).status == .unauthorized)
            let all = try await client.json(.post, "/v1/scheduling/builds", body: body(false), token: token)
            let sections = Set((all.object["schedules"] as? [[String: Any]] ?? []).flatMap { ($0["sections"] as? [[String: Any]] ?? []).compactMap { $0["classId"] as? Int } })
            let refused = try #require(sections.sorted().first)
            gateway.registered.refuse([Int64(refused): ["prerequisite", "hold"]], for: ada)
            let eligible = try await client.json(.post, "/v1/scheduling/builds", body: body(true), token: token)
            #expect(eligible.status == .ok)
            let kept = Set((eligible.object["schedules"] as? [[String: Any]] ?? []).flatMap { ($0["sections"] as? [[String: Any]] ?? []).compactMap { $0["classId"] as? Int } })
            #expect(!kept.contains(refused) && all.object["excluded"] == nil)
            let excluded = eligible.object["excluded"] as? [[String: Any]] ?? []
            #expect(excluded.count == 1 && excluded.first?["classId"] as? Int == refused && excluded.first?["rules"] as? [String] == ["prerequisite", "hold"])
        }
    }

    /// `withFriends`: a signed-in student's build names, per schedule, the friends who take its
    /// sections; without a token it is refused.
    @Test(arguments: TestBackend.all) func aBuildWithFriendsNamesThemInEachSchedule(_ backend: TestBackend) async throws {
        let gateway = try await SchedulingGateway.make(backend)
        defer { gateway.cleanUp() }
        let (term, courses, _) = try await Self.twoCourses(gateway)
        let token = try await gateway.account("ada", role: .student)
        let body = #"{"term": "\#(term)", "courses": ["\#(courses[0])", "\#(courses[1])"], "limit": 50, "withFriends": true}"#
        try await gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/scheduling/builds", body: body).status == .unauthorized)
            let alone = try await client.json(.post, "/v1/scheduling/builds", body: body, token: token)
            let schedules = try #require(alone.object["schedules"] as? [[String: Any]], "\(alone.body)")
            #expect(!schedules.isEmpty && schedules.allSatisfy { ($0["friends"] as? [Any])?.isEmpty == true }, "no friends, nobody named")
            let placed = try #require((schedules.last?["sections"] as? [[String: Any]])?.first?["classId"] as? Int)
            gateway.registered.friends([FriendRef(accountID: 77, displayName: "Grace", username: "grace")], take: Int64(placed))
            let together = try await client.json(.post, "/v1/scheduling/builds", body: body, token: token)
            let ranked = try #require(together.object["schedules"] as? [[String: Any]])
            let named = ranked.filter { ($0["friends"] as? [[String: Any]])?.contains { $0["displayName"] as? String == "Grace" } == true }
            #expect(!named.isEmpty)
            for schedule in named {
                let friend = try #require((schedule["friends"] as? [[String: Any]])?.first)
                #expect(friend["accountId"] as? Int == 77 && friend["classIds"] as? [Int] == [placed])
            }
            #expect(ranked.map { $0["score"] as? Double } == schedules.map { $0["score"] as? Double }, "scores keep their order")
        }
    }
}
