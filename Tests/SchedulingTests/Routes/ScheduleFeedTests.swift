import AuthTestSupport
import Catalog
import Foundation
import GatewayCore
import Storage
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
@testable import Scheduling
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// Saved schedules' subscription feeds over the Scheduling module's routes (``SchedulingGateway``): a secret
/// address per schedule, showing what the schedule's `.ics` download shows, stored as a hash,
/// belonging to the schedule's owner, and gone when revoked, replaced or the schedule deleted.
@Suite("Saved schedule calendar feeds")
struct ScheduleFeedTests {
    /// A gateway with a term calendar, two students, and classes of that term.
    static func setUp() async throws -> (gateway: SchedulingGateway, ada: String, bob: String, term: String, classIDs: [Int64]) {
        let gateway = try await SchedulingGateway.make()
        let (term, _, ids) = try await SchedulingRoutesTests.twoCourses(gateway)
        _ = try await gateway.catalog.terms.seed(DemoTerms.all + [SchedulingRoutesTests.term(term)])
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        return (gateway, ada, bob, term, ids)
    }

    /// Saves "Plan A" with the first class for the token's student; answers its id.
    static func savePlan(_ client: any TestClientProtocol, term: String, classIDs: [Int64], token: String) async throws -> Int {
        let created = try await client.json(
            .post, "/v1/me/schedules", body: #"{"name": "Plan A", "term": "\#(term)", "classIds": [\#(classIDs[0])]}"#, token: token
        )
        #expect(created.status == .created)
        return try #require(created.object["id"] as? Int)
    }

    static func storedHashes(_ gateway: SchedulingGateway) async throws -> [String] {
        try await gateway.database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT lower(hex(token_hash)) FROM scheduling_schedule_feeds WHERE length(token_hash) = 32")
        }
    }

    static func token(of path: String) -> String { String(path.dropFirst("/calendar/".count).dropLast(4)) }

    @Test func aScheduleFeedShowsItsCalendarAndStoresOnlyAHash() async throws {
        let (gateway, ada, _, term, ids) = try await Self.setUp()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await Self.savePlan(client, term: term, classIDs: ids, token: ada)
            let none = try await client.json(.get, "/v1/me/schedules/\(id)/calendar-feed", token: ada)
            #expect(none.status == .notFound)
            #expect(none.object["type"] as? String == "/problems/calendar-feed-not-found")

            let created = try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed", token: ada)
            #expect(created.status == .created)
            #expect(created.headers[.cacheControl] == "no-store")
            let path = try #require(created.object["path"] as? String)
            #expect(path.hasPrefix("/calendar/") && path.hasSuffix(".ics"))
            let token = Self.token(of: path)
            #expect(token.count == 43)
            #expect((created.object["webcalUrl"] as? String)?.hasSuffix(path) ?? true)
            // Only the token's SHA-256 (32 bytes) is kept, never the token.
            let expected = CalendarService.hash(token: token).map { String(format: "%02x", $0) }.joined()
            #expect(try await Self.storedHashes(gateway) == [expected])
            #expect(!expected.contains(token.lowercased()))

            let feed = try await client.json(.get, path)
            #expect(feed.status == .ok)
            #expect(feed.contentType == "text/calendar; charset=utf-8")
            #expect(feed.headers[.contentDisposition]?.hasPrefix("inline;") == true)
            let download = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada)
            #expect(feed.body == download.body)
            #expect(feed.body.contains("BEGIN:VEVENT"))
            let etag = try #require(feed.headers[.eTag])
            #expect(try await client.json(.get, path, headers: [.ifNoneMatch: etag]).status == .notModified)

            let status = try await client.json(.get, "/v1/me/schedules/\(id)/calendar-feed", token: ada)
            #expect(status.status == .ok)
            #expect(status.object["active"] as? Bool == true)
            #expect(status.object["createdAt"] is String)
            // The registration feed is another thing: the account has none.
            #expect(try await client.json(.get, "/v1/me/calendar-feed", token: ada).status == .notFound)
        }
    }

    @Test func theFeedFollowsTheScheduleAndANewOneRevokesTheOld() async throws {
        let (gateway, ada, _, term, ids) = try await Self.setUp()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await Self.savePlan(client, term: term, classIDs: ids, token: ada)
            let first = try #require(try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed", token: ada).object["path"] as? String)
            let before = try await client.json(.get, first)
            #expect(before.body.contains("SEQUENCE:0"))
            let changed = try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"classIds": [\#(ids[0]), \#(ids.last!)]}"#, token: ada)
            #expect(changed.status == .ok)
            let after = try await client.json(.get, first, headers: [.ifNoneMatch: before.headers[.eTag] ?? ""])
            #expect(after.status == .ok)
            #expect(after.body.contains("SEQUENCE:1"))

            let second = try #require(try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed", token: ada).object["path"] as? String)
            #expect(second != first)
            #expect(try await client.json(.get, first).status == .notFound)
            #expect(try await client.json(.get, second).status == .ok)
            #expect(try await Self.storedHashes(gateway).count == 1)

            // Revoking the registration feed leaves the schedule's alone, and the other way round.
            let registration = try #require(try await client.json(.post, "/v1/me/calendar-feed", token: ada).object["path"] as? String)
            #expect(try await client.json(.delete, "/v1/me/calendar-feed", token: ada).status == .noContent)
            #expect(try await client.json(.get, registration).status == .notFound)
            #expect(try await client.json(.get, second).status == .ok)

            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)/calendar-feed", token: ada).status == .noContent)
            #expect(try await client.json(.get, second).status == .notFound)
            let again = try await client.json(.delete, "/v1/me/schedules/\(id)/calendar-feed", token: ada)
            #expect(again.status == .notFound)
            #expect(again.object["type"] as? String == "/problems/calendar-feed-not-found")
            #expect(try await Self.storedHashes(gateway).isEmpty)
        }
    }

    @Test func anotherStudentsScheduleHasNoFeedForThem() async throws {
        let (gateway, ada, bob, term, ids) = try await Self.setUp()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await Self.savePlan(client, term: term, classIDs: ids, token: ada)
            let path = try #require(try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed", token: ada).object["path"] as? String)
            for method in [HTTPRequest.Method.get, .post, .delete] {
                let reply = try await client.json(method, "/v1/me/schedules/\(id)/calendar-feed", token: bob)
                #expect(reply.status == .notFound, "\(method)")
                #expect(reply.object["type"] as? String == "/problems/schedule-not-found", "\(method)")
            }
            #expect(try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed").status == .unauthorized)
            #expect(try await client.json(.post, "/v1/me/schedules/999999/calendar-feed", token: ada).status == .notFound)
            #expect(try await client.json(.post, "/v1/me/schedules/nope/calendar-feed", token: ada).status == .notFound)
            // Bob's attempts changed nothing: Ada's feed still answers.
            #expect(try await client.json(.get, path).status == .ok)
            #expect(try await Self.storedHashes(gateway).count == 1)
        }
    }

    @Test func deletingTheScheduleRevokesItsFeed() async throws {
        let (gateway, ada, bob, term, ids) = try await Self.setUp()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await Self.savePlan(client, term: term, classIDs: ids, token: ada)
            let path = try #require(try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed", token: ada).object["path"] as? String)
            // Someone else's delete is refused and leaves the feed.
            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)", token: bob).status == .notFound)
            #expect(try await client.json(.get, path).status == .ok)
            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)", token: ada).status == .noContent)
            let gone = try await client.json(.get, path)
            #expect(gone.status == .notFound)
            #expect(gone.object["type"] as? String == "/problems/calendar-feed-not-found")
            #expect(try await Self.storedHashes(gateway).isEmpty)
        }
    }
}
