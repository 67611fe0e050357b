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
import SQLiteStorage
import Registration

/// Scheduling with the whole application: the registration feed follows what the student
/// registers through Registration's routes, and a feed's secret never reaches the access log.
@Suite("Scheduling journeys")
struct SchedulingJourneyTests {
    static let profile = #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#

    static func term(_ id: String) -> Term {
        Term(id: id, name: "Term \(id)", firstDay: CivilDate(year: 2030, month: 1, day: 14)!, lastDay: CivilDate(year: 2030, month: 5, day: 3)!, timeZone: "America/Los_Angeles")
    }

    @Test(arguments: GatewayBackend.all) func feedFollowsRegistrationAndCanBeRevoked(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let snapshot = try await gateway.app.catalogService.snapshot()
        let timed = snapshot.index.classes.indices
            .filter { snapshot.seats[$0].openSeats > 0 && snapshot.index.classes[$0].meetings.contains(where: \.isScheduled) }
            .map { snapshot.index.classes[$0] }
        let first = timed[0], second = timed.first { $0.term == first.term && !$0.meetings.conflicts(with: first.meetings) && $0.courseLabel != first.courseLabel }!
        _ = try await gateway.app.termService.seed(DemoTerms.all + [Self.term(first.term)])
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
        _ = try await app.accounts.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let token = try await app.accounts.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await app.makeApplication().test(.router) { client in
            let created = try await client.json(.post, "/v1/me/calendar-feed", token: token)
            let path = try #require(created.object["path"] as? String)
            #expect(try await client.json(.get, path).status == .ok)
            let secret = String(path.dropFirst("/calendar/".count).dropLast(4))
            let lines = logs.all
            #expect(lines.contains { $0.contains("path=/calendar/[redacted]") })
            #expect(!lines.contains { $0.contains(secret) })

            // A share link's token is as secret: reading it, its calendar, or a token that was
            // never made, the log shows the prefix only.
            try await app.registrationService.admin.seedDemoCatalogIfEmpty(size: .fixtures)
            let first = try #require(try await app.catalogService.snapshot().index.classes.first)
            let term = first.term, classID = first.id
            let saved = try await client.json(.post, "/v1/me/schedules", body: #"{"name": "Plan", "term": "\#(term)", "classIds": [\#(classID)]}"#, token: token)
            let scheduleID = try #require(saved.object["id"] as? Int, "\(saved.body)")
            let shared = try await client.json(.post, "/v1/me/schedules/\(scheduleID)/share-links", body: #"{"expiresIn": "1d"}"#, token: token)
            let sharedPath = try #require(shared.object["path"] as? String)
            #expect(try await client.json(.get, sharedPath).status == .ok)
            _ = try await client.json(.get, sharedPath + "/calendar.ics")
            _ = try await client.json(.get, "/v1/shared/schedules/never-made-token")
            let shareToken = String(sharedPath.dropFirst("/v1/shared/schedules/".count))
            _ = try await client.json(.get, "/shared/" + shareToken)
            let after = logs.all
            #expect(after.contains { $0.contains("path=/shared/[redacted]") }, "the link's web page too")
            #expect(after.filter { $0.contains("path=/v1/shared/schedules/[redacted]") }.count >= 3)
            #expect(!after.contains { $0.contains(shareToken) || $0.contains("never-made-token") })
        }
    }
}
