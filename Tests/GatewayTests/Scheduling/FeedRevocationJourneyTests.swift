import Catalog
import Foundation
import GatewayCore
import Storage
import GatewayApp
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
@testable import Scheduling
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// A feed's secret ends with the student's credentials: Auth's password change and an operator
/// disabling the account revoke Scheduling's feeds (through the application's wiring).
@Suite("Feed revocation across modules")
struct FeedRevocationJourneyTests {
    /// Two courses of the fixtures catalog with several sections each, in one term.
    static func twoCourses(_ gateway: TestGateway) async throws -> (term: String, courses: [String], classIDs: [Int64]) {
        let snapshot = try await gateway.app.catalogService.snapshot()
        var byCourse: [String: [CatalogClass]] = [:]
        for item in snapshot.index.classes where item.meetings.contains(where: \.isScheduled) {
            byCourse[item.term + "|" + item.courseLabel, default: []].append(item)
        }
        let picked = byCourse.filter { $0.value.count >= 2 }.sorted { $0.key < $1.key }.prefix(2)
        let term = picked.first!.value[0].term
        return (term, picked.map { $0.value[0].courseLabel }, picked.flatMap { $0.value.map(\.id) })
    }

    /// A gateway with a term calendar, two students, and classes of that term.
    static func setUp() async throws -> (gateway: TestGateway, ada: String, bob: String, term: String, classIDs: [Int64]) {
        let gateway = try await TestGateway.registration()
        let (term, _, ids) = try await FeedRevocationJourneyTests.twoCourses(gateway)
        _ = try await gateway.app.termService.seed(DemoTerms.all + [SchedulingJourneyTests.term(term)])
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

    static func storedHashes(_ gateway: TestGateway) async throws -> [String] {
        try await gateway.app.database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT lower(hex(token_hash)) FROM scheduling_schedule_feeds WHERE length(token_hash) = 32")
        }
    }

    /// A feed's address is a bearer secret: it ends with the student's tokens, when the password
    /// changes and when an operator disables the account, and re-enabling brings none back.
    @Test func feedsEndWithThePasswordAndWithTheAccount() async throws {
        let (gateway, ada, bob, term, ids) = try await Self.setUp()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        try await gateway.withRouter { client in
            func feeds(_ token: String) async throws -> [String] {
                let id = try await Self.savePlan(client, term: term, classIDs: ids, token: token)
                let schedule = try #require(try await client.json(.post, "/v1/me/schedules/\(id)/calendar-feed", token: token).object["path"] as? String)
                let registration = try #require(try await client.json(.post, "/v1/me/calendar-feed", token: token).object["path"] as? String)
                for path in [schedule, registration] { #expect(try await client.json(.get, path).status == .ok) }
                return [schedule, registration]
            }
            let adas = try await feeds(ada), bobs = try await feeds(bob)

            let change = try await client.json(
                .put, "/v1/me/password", body: #"{"currentPassword": "correct horse battery", "newPassword": "a new and longer passphrase"}"#, token: ada
            )
            #expect(change.status == .noContent)
            for path in adas { #expect(try await client.json(.get, path).status == .notFound, "\(path) after the password change") }
            for path in bobs { #expect(try await client.json(.get, path).status == .ok, "another student's feeds stay") }

            let bobID = try #require(try await gateway.app.database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM accounts WHERE username = 'bob'") })
            #expect(try await client.json(.patch, "/v1/admin/accounts/\(bobID)", body: #"{"disabled": true}"#, token: admin).status == .ok)
            for path in bobs { #expect(try await client.json(.get, path).status == .notFound, "\(path) after disabling") }
            #expect(try await client.json(.patch, "/v1/admin/accounts/\(bobID)", body: #"{"disabled": false}"#, token: admin).status == .ok)
            for path in bobs { #expect(try await client.json(.get, path).status == .notFound, "\(path) after re-enabling") }
            #expect(try await Self.storedHashes(gateway).isEmpty)
        }
    }
}
