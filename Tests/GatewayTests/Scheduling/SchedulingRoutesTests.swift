import Auth
import Catalog
import Logging
import Foundation
import GatewayApp
import GatewayCore
import GRDB
import NIOCore
import Storage
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// The Scheduling module over the real router and a real SQLite file: builds, saved
/// schedules with their owners, calendar downloads and the subscription feed.
@Suite("Scheduling over HTTP")
struct SchedulingRoutesTests {
    /// Two courses of the fixtures catalog with several sections each, in one term.
    static func twoCourses(_ gateway: TestGateway) async throws -> (term: String, courses: [String], classIDs: [Int64]) {
        let snapshot = try await gateway.app.modules.catalog.catalog.snapshot()
        var byCourse: [String: [CatalogClass]] = [:]
        for item in snapshot.index.classes where item.meetings.contains(where: \.isScheduled) {
            byCourse[item.term + "|" + item.courseLabel, default: []].append(item)
        }
        let picked = byCourse.filter { $0.value.count >= 2 }.sorted { $0.key < $1.key }.prefix(2)
        let term = picked.first!.value[0].term
        return (term, picked.map { $0.value[0].courseLabel }, picked.flatMap { $0.value.map(\.id) })
    }

    static let profile = #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#

    @Test(arguments: GatewayBackend.all) func anyoneBuildsAndIdenticalRequestsGetIdenticalAnswers(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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

    @Test(arguments: GatewayBackend.all) func badRequestsNameTheirField(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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

    @Test(arguments: GatewayBackend.all) func nothingFitsAnswersWithAnExplanation(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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

    @Test(arguments: GatewayBackend.all) func buildsAreRateLimitedPerAddress(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) { $0.buildsPerMinute = 2 }
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

    @Test(arguments: GatewayBackend.all) func savedSchedulesBelongToTheirOwner(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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

    @Test(arguments: GatewayBackend.all) func savedScheduleDownloadsAsCalendarWithValidators(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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
            _ = try await gateway.app.modules.catalog.terms.seed(DemoTerms.all + [Self.term(term)])
            let calendar = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada)
            #expect(calendar.status == .ok)
            #expect(calendar.contentType == "text/calendar; charset=utf-8")
            #expect(calendar.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"plan-a") == true)
            #expect(calendar.body.hasPrefix("BEGIN:VCALENDAR\r\n"))
            #expect(calendar.body.contains("BEGIN:VTIMEZONE"))
            #expect(calendar.body.contains("BEGIN:VEVENT"))
            let etag = try #require(calendar.headers[.eTag])
            let again = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.isEmpty)
        }
    }

    @Test(arguments: GatewayBackend.all) func feedFollowsRegistrationAndCanBeRevoked(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let snapshot = try await gateway.app.modules.catalog.catalog.snapshot()
        let timed = snapshot.index.classes.indices
            .filter { snapshot.seats[$0].openSeats > 0 && snapshot.index.classes[$0].meetings.contains(where: \.isScheduled) }
            .map { snapshot.index.classes[$0] }
        let first = timed[0], second = timed.first { $0.term == first.term && !$0.meetings.conflicts(with: first.meetings) && $0.courseLabel != first.courseLabel }!
        _ = try await gateway.app.modules.catalog.terms.seed(DemoTerms.all + [Self.term(first.term)])
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client in
            #expect(try await client.json(.put, "/v1/me/registration/profile", body: Self.profile, token: ada).status == .ok)
            #expect(try await client.json(.get, "/v1/me/calendar-feed", token: ada).status == .notFound)
            let created = try await client.json(.post, "/v1/me/calendar-feed", token: ada)
            #expect(created.status == .created)
            let path = try #require(created.object["path"] as? String)
            #expect(path.hasPrefix("/calendar/") && path.hasSuffix(".ics"))
            let token = String(path.dropFirst("/calendar/".count).dropLast(4))
            if case .sqlite = gateway.app.storage {
                let stored = try await gateway.app.database.pool.read { db in try String.fetchAll(db, sql: "SELECT hex(token_hash) FROM scheduling_calendar_feeds") }
                #expect(stored.count == 1 && !stored[0].contains(token))
            }

            let empty = try await client.json(.get, path)
            #expect(empty.status == .ok)
            #expect(!empty.body.contains("BEGIN:VEVENT"))
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":\#(first.id)}"#, token: ada).status == .created)
            let one = try await client.json(.get, path)
            #expect(one.body.contains("BEGIN:VEVENT"))
            #expect(one.headers[.eTag] != empty.headers[.eTag])
            #expect(one.body.contains("SEQUENCE:1"))
            let unchanged = try await client.json(.get, path, headers: [.ifNoneMatch: one.headers[.eTag] ?? ""])
            #expect(unchanged.status == .notModified)
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":\#(second.id)}"#, token: ada).status == .created)
            let two = try await client.json(.get, path, headers: [.ifNoneMatch: one.headers[.eTag] ?? ""])
            #expect(two.status == .ok)
            #expect(two.body.contains("SEQUENCE:2"))
            let download = try await client.json(.get, "/v1/me/registration/calendar.ics", token: ada)
            #expect(download.body == two.body)

            #expect(try await client.json(.delete, "/v1/me/calendar-feed", token: ada).status == .noContent)
            #expect(try await client.json(.get, path).status == .notFound)
            #expect(try await client.json(.get, "/calendar/not-a-token.ics").status == .notFound)
        }
    }

    @Test(arguments: GatewayBackend.all) func adminsImportRatingsAndBuildsUseThem(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
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
}

@Suite("Calendar feed secrets")
struct CalendarFeedSecretTests {
    @Test func theFeedTokenNeverReachesTheAccessLog() async throws {
        let logs = CapturedLogs()
        var logger = Logger(label: "test") { _ in CapturedLogs.Handler(sink: logs) }
        logger.logLevel = .info
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.logLevel = .info
        let app = try GatewayApplication(configuration: config, clock: ManualClock(Date()), logger: logger)
        _ = try await app.modules.auth.service.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let token = try await app.modules.auth.service.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await app.makeApplication().test(.router) { client in
            let created = try await client.json(.post, "/v1/me/calendar-feed", token: token)
            let path = try #require(created.object["path"] as? String)
            #expect(try await client.json(.get, path).status == .ok)
            let secret = String(path.dropFirst("/calendar/".count).dropLast(4))
            let lines = logs.all
            #expect(lines.contains { $0.contains("path=/calendar/[redacted]") })
            #expect(!lines.contains { $0.contains(secret) })
        }
    }
}
