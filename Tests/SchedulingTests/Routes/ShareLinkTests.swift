import Auth
import AuthTestSupport
import Catalog
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
@testable import Scheduling
import Storage
import TestSupport
import Testing

/// Share links of saved schedules over the Scheduling module's routes (``SchedulingGateway``), on
/// both backends: a secret address per link that shows the schedule to whoever holds it, kept as
/// a hash, listed and revoked by its owner only, ending at its expiry (an injected clock), when
/// revoked, or with its schedule, and answering every miss with the same 404.
@Suite("Saved schedule share links")
struct ShareLinkTests {
    static func setUp(_ backend: TestBackend) async throws -> (gateway: SchedulingGateway, ada: String, bob: String, term: String, classIDs: [Int64]) {
        let gateway = try await SchedulingGateway.make(backend)
        let (term, _, ids) = try await SchedulingRoutesTests.twoCourses(gateway)
        _ = try await gateway.catalog.terms.seed(DemoTerms.all + [SchedulingRoutesTests.term(term)])
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        return (gateway, ada, bob, term, ids)
    }

    static func share(_ client: any TestClientProtocol, _ id: Int, expiresIn: String, token: String) async throws -> (path: String, id: Int) {
        let made = try await client.json(.post, "/v1/me/schedules/\(id)/share-links", body: #"{"expiresIn": "\#(expiresIn)"}"#, token: token)
        #expect(made.status == .created, "\(made.body)")
        #expect(made.headers[.cacheControl] == "no-store")
        return (try #require(made.object["path"] as? String), try #require(made.object["id"] as? Int))
    }

    /// A problem's answer without what differs per request (its path and request id): what a
    /// caller could tell two misses apart by.
    static func shape(_ reply: HTTPReply) -> String {
        var object = reply.object
        object["instance"] = nil
        object["requestId"] = nil
        return "\(reply.status.code) " + object.keys.sorted().map { "\($0)=\(object[$0] ?? "")" }.joined(separator: "&")
    }

    @Test(arguments: TestBackend.all)
    func aLinkShowsTheScheduleToAnyoneAndKeepsOnlyAHash(_ backend: TestBackend) async throws {
        let (gateway, ada, bob, term, ids) = try await Self.setUp(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await ScheduleFeedTests.savePlan(client, term: term, classIDs: ids, token: ada)
            let (path, _) = try await Self.share(client, id, expiresIn: "1d", token: ada)
            #expect(path.hasPrefix("/v1/shared/schedules/"))
            let token = String(path.dropFirst("/v1/shared/schedules/".count))
            #expect(token.count == 43, "256 random bits, base64url")

            // Anyone, signed in or not, reads the schedule: no account, no schedule id.
            for caller in [nil, bob] {
                let shared = try await client.json(.get, path, token: caller)
                #expect(shared.status == .ok)
                #expect(shared.object["name"] as? String == "Plan A" && shared.object["term"] as? String == term)
                #expect((shared.object["sections"] as? [[String: Any]])?.first?["classId"] as? Int == Int(ids[0]))
                #expect(shared.object["id"] == nil && shared.object["accountId"] == nil)
            }
            let calendar = try await client.json(.get, path + "/calendar.ics")
            #expect(calendar.status == .ok)
            #expect(calendar.contentType == "text/calendar; charset=utf-8")
            #expect(calendar.body.contains("BEGIN:VEVENT"))
            let own = try await client.json(.get, "/v1/me/schedules/\(id)/calendar.ics", token: ada)
            #expect(calendar.body == own.body, "the same document its owner downloads")

            // Only the token's SHA-256 is stored.
            let stored = try await gateway.transactions.read { db in try gateway.module.shareLinks.links.target(
                tokenHash: CalendarService.hash(token: token), at: gateway.clock.now(), in: db
            ) }
            #expect(stored?.scheduleID == Int64(id))
            let listed = try await client.json(.get, "/v1/me/schedules/\(id)/share-links", token: ada)
            let items = try #require(listed.object["items"] as? [[String: Any]])
            #expect(items.count == 1 && items[0]["expiresAt"] is String && items[0]["createdAt"] is String)
            #expect(!listed.body.contains(token), "a listed link never shows its token again")
        }
    }

    @Test(arguments: TestBackend.all)
    func everyExpiryEndsItsLinkAndEveryMissAnswersAlike(_ backend: TestBackend) async throws {
        let (gateway, ada, _, term, ids) = try await Self.setUp(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await ScheduleFeedTests.savePlan(client, term: term, classIDs: ids, token: ada)
            var links: [(expiry: String, path: String)] = []
            for expiry in ["1h", "1d", "1w", "never"] { links.append((expiry, try await Self.share(client, id, expiresIn: expiry, token: ada).path)) }
            for (expiry, path) in links { #expect(try await client.json(.get, path).status == .ok, "\(expiry)") }

            let unknown = try await client.json(.get, "/v1/shared/schedules/" + String(repeating: "A", count: 43))
            // Past each expiry, its link answers what a link that never existed answers.
            for (step, (lasting, ended)) in [(3601.0, ["1h"]), (86_400, ["1h", "1d"]), (7 * 86_400, ["1h", "1d", "1w"])].enumerated() {
                gateway.clock.set(gateway.clock.now().addingTimeInterval(step == 0 ? lasting : lasting - [3601.0, 86_400][step - 1]))
                for (expiry, path) in links {
                    let reply = try await client.json(.get, path)
                    if ended.contains(expiry) {
                        #expect(reply.status == .notFound, "\(expiry) after \(lasting) s")
                        #expect(Self.shape(reply) == Self.shape(unknown), "an expired link is the same 404 as an unknown one")
                    } else {
                        #expect(reply.status == .ok, "\(expiry) after \(lasting) s")
                    }
                }
            }
            // Ada's sign-in outlived the week no more than her links did: she signs in again.
            let fresh = try await gateway.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
            let live = try await client.json(.get, "/v1/me/schedules/\(id)/share-links", token: fresh)
            let items = try #require(live.object["items"] as? [[String: Any]])
            #expect(items.count == 1 && items[0]["expiresAt"] == nil, "only the link that never expires is listed")
            #expect(unknown.status == .notFound)
            #expect(unknown.object["type"] as? String == "/problems/shared-schedule-not-found")
            #expect(Self.shape(try await client.json(.get, "/v1/shared/schedules/not-a-token")) == Self.shape(unknown))
            #expect(Self.shape(try await client.json(.get, "/v1/shared/schedules/not-a-token/calendar.ics")) == Self.shape(unknown))
        }
    }

    @Test(arguments: TestBackend.all)
    func onlyTheOwnerListsAndRevokesAndRevokingEndsTheLinkAtOnce(_ backend: TestBackend) async throws {
        let (gateway, ada, bob, term, ids) = try await Self.setUp(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await ScheduleFeedTests.savePlan(client, term: term, classIDs: ids, token: ada)
            let (path, linkID) = try await Self.share(client, id, expiresIn: "never", token: ada)
            let unknown = try await client.json(.get, "/v1/shared/schedules/" + String(repeating: "B", count: 43))

            // Bob reaches none of Ada's links: her schedule is not found for him.
            for (method, route) in [(HTTPRequest.Method.get, "/v1/me/schedules/\(id)/share-links"), (.post, "/v1/me/schedules/\(id)/share-links"),
                                    (.delete, "/v1/me/schedules/\(id)/share-links/\(linkID)")] {
                let reply = try await client.json(method, route, body: method == .post ? #"{"expiresIn": "1h"}"# : nil, token: bob)
                #expect(reply.status == .notFound, "\(method) \(route)")
                #expect(reply.object["type"] as? String == "/problems/schedule-not-found")
            }
            #expect(try await client.json(.get, "/v1/me/schedules/\(id)/share-links").status == .unauthorized)
            #expect(try await client.json(.get, path).status == .ok, "Bob's attempts changed nothing")

            let bad = try await client.json(.post, "/v1/me/schedules/\(id)/share-links", body: #"{"expiresIn": "2d"}"#, token: ada)
            #expect(bad.status == .unprocessableContent)
            #expect(bad.object["invalidFields"] as? [String] == ["expiresIn"])
            let otherLink = try await client.json(.delete, "/v1/me/schedules/\(id)/share-links/\(linkID + 1000)", token: ada)
            #expect(otherLink.status == .notFound)
            #expect(otherLink.object["type"] as? String == "/problems/share-link-not-found")

            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)/share-links/\(linkID)", token: ada).status == .noContent)
            let revoked = try await client.json(.get, path)
            #expect(revoked.status == .notFound)
            #expect(Self.shape(revoked) == Self.shape(unknown), "a revoked link is the same 404 as an unknown one")
            #expect(try await client.json(.get, path + "/calendar.ics").status == .notFound)
        }
    }

    @Test(arguments: TestBackend.all)
    func aScheduleKeepsTwentyLiveLinksAndTakesThemWithIt(_ backend: TestBackend) async throws {
        let (gateway, ada, _, term, ids) = try await Self.setUp(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await ScheduleFeedTests.savePlan(client, term: term, classIDs: ids, token: ada)
            var paths: [String] = []
            for n in 0..<ShareLink.limitPerSchedule { paths.append(try await Self.share(client, id, expiresIn: n == 0 ? "1h" : "never", token: ada).path) }
            let full = try await client.json(.post, "/v1/me/schedules/\(id)/share-links", body: #"{"expiresIn": "1h"}"#, token: ada)
            #expect(full.status == .conflict)
            #expect(full.object["type"] as? String == "/problems/share-link-limit" && full.object["limit"] as? Int == 20)
            // An expired link frees its place.
            gateway.clock.advance(by: 3601)
            _ = try await Self.share(client, id, expiresIn: "1w", token: ada)

            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)", token: ada).status == .noContent)
            for path in paths.suffix(3) { #expect(try await client.json(.get, path).status == .notFound, "the schedule took its links") }
        }
    }

    @Test func anonymousReadsAreLimitedPerNetwork() async throws {
        let (gateway, ada, _, term, ids) = try await Self.setUp(.sqlite)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await ScheduleFeedTests.savePlan(client, term: term, classIDs: ids, token: ada)
            let (path, _) = try await Self.share(client, id, expiresIn: "never", token: ada)
            let network = TestClientAddress.from("2001:db8:1:2::1")
            var limited: HTTPReply?
            for _ in 0..<200 {
                let reply = try await client.json(.get, "/v1/shared/schedules/" + String(repeating: "C", count: 43), headers: network)
                if reply.status == .tooManyRequests { limited = reply; break }
            }
            let refused = try #require(limited, "a network guessing tokens is stopped")
            #expect(refused.headers[.retryAfter] != nil)
            // Another address of the same /64 is the same network; another network is not.
            #expect(try await client.json(.get, path, headers: TestClientAddress.from("2001:db8:1:2::99")).status == .tooManyRequests)
            #expect(try await client.json(.get, path, headers: TestClientAddress.from("2001:db8:1:3::1")).status == .ok)
        }
    }

    @Test(arguments: TestBackend.all)
    func aSignedInStudentCopiesASharedScheduleIntoTheirOwn(_ backend: TestBackend) async throws {
        let (gateway, ada, bob, term, ids) = try await Self.setUp(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let id = try await ScheduleFeedTests.savePlan(client, term: term, classIDs: ids, token: ada)
            let (path, linkID) = try await Self.share(client, id, expiresIn: "1w", token: ada)
            let token = String(path.dropFirst("/v1/shared/schedules/".count))

            let copy = try await client.json(.post, "/v1/me/schedules", body: #"{"fromShared": "\#(token)"}"#, token: bob)
            #expect(copy.status == .created, "\(copy.body)")
            #expect(copy.object["name"] as? String == "Plan A" && copy.object["term"] as? String == term)
            #expect(copy.object["classIds"] as? [Int] == [Int(ids[0])])
            let copyID = try #require(copy.object["id"] as? Int)
            #expect(copyID != id)
            // The copy is Bob's alone: Ada does not see it, and it has no links.
            #expect(try await client.json(.get, "/v1/me/schedules/\(copyID)", token: ada).status == .notFound)
            let links = try await client.json(.get, "/v1/me/schedules/\(copyID)/share-links", token: bob)
            #expect((links.object["items"] as? [Any])?.isEmpty == true)
            let named = try await client.json(.post, "/v1/me/schedules", body: #"{"fromShared": "\#(token)", "name": "Ada's plan"}"#, token: bob)
            #expect(named.object["name"] as? String == "Ada's plan")

            let otherTerm = try await client.json(.post, "/v1/me/schedules", body: #"{"fromShared": "\#(token)", "term": "1999-fall"}"#, token: bob)
            #expect(otherTerm.status == .unprocessableContent)
            #expect(otherTerm.object["invalidFields"] as? [String] == ["term"])
            let mixed = try await client.json(.post, "/v1/me/schedules", body: #"{"fromShared": "\#(token)", "classIds": [1]}"#, token: bob)
            #expect(mixed.object["invalidFields"] as? [String] == ["classIds"])
            #expect(try await client.json(.post, "/v1/me/schedules", body: #"{"fromShared": "\#(token)"}"#).status == .unauthorized)

            // A revoked link copies nothing.
            #expect(try await client.json(.delete, "/v1/me/schedules/\(id)/share-links/\(linkID)", token: ada).status == .noContent)
            let gone = try await client.json(.post, "/v1/me/schedules", body: #"{"fromShared": "\#(token)"}"#, token: bob)
            #expect(gone.status == .notFound)
            #expect(gone.object["type"] as? String == "/problems/shared-schedule-not-found")
            let bobs = try await client.json(.get, "/v1/me/schedules", token: bob)
            #expect((bobs.object["items"] as? [Any])?.count == 2)
            // Without `fromShared`, the fields are required as before.
            let bare = try await client.json(.post, "/v1/me/schedules", body: #"{"term": "\#(term)", "classIds": [\#(ids[0])]}"#, token: bob)
            #expect(bare.object["invalidFields"] as? [String] == ["name"])
        }
    }
}
