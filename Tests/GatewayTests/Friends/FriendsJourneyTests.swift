import Catalog
import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport

/// Friends with the whole application, on both backends: what a friend sees of another's
/// schedules and enrollments, the friends on a class list, display names, and access ending at
/// once when a friendship ends or a block comes.
@Suite("Friends journeys")
struct FriendsJourneyTests {
    static func profile(_ redID: String, _ first: String) -> String {
        #"{"redId":"\#(redID)","firstName":"\#(first)","lastName":"Student","email":"\#(first.lowercased())@sdsu.edu"}"#
    }

    static func items(_ reply: HTTPReply) throws -> [[String: Any]] {
        try #require(reply.object["items"] as? [[String: Any]], "\(reply.status) \(reply.body)")
    }

    /// Two open classes of one term that don't meet at the same time, and a third elsewhere.
    static func classes(_ gateway: TestGateway) async throws -> (term: String, first: Int64, second: Int64) {
        let snapshot = try await gateway.app.catalogService.snapshot()
        let timed = snapshot.index.classes.indices
            .filter { snapshot.seats[$0].openSeats > 0 && snapshot.index.classes[$0].meetings.contains(where: \.isScheduled) }
            .map { snapshot.index.classes[$0] }
        let first = try #require(timed.first)
        let second = try #require(timed.first { $0.term == first.term && !$0.meetings.conflicts(with: first.meetings) && $0.courseLabel != first.courseLabel })
        return (first.term, first.id, second.id)
    }

    /// The friends a class list shows on class `id` to `token`'s student (nil: no field).
    static func friendsOn(_ client: any TestClientProtocol, _ id: Int64, token: String?) async throws -> [String]? {
        let detail = try await client.json(.get, "/v1/registration/classes/\(id)", token: token)
        #expect(detail.status == .ok, "\(detail.body)")
        return (detail.object["friends"] as? [[String: Any]])?.compactMap { $0["displayName"] as? String }
    }

    @Test(arguments: GatewayBackend.all) func friendsSeeWhatIsSharedAndNothingOnceTheFriendshipEnds(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let (term, planned, enrolled) = try await Self.classes(gateway)
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        let carol = try await gateway.account("carol", role: .student)
        let bobID = try #require(try await gateway.accountID("bob"))
        try await gateway.withRouter { client in
            #expect(try await client.json(.put, "/v1/me/registration/profile", body: Self.profile("822326101", "Robert"), token: bob).status == .ok)
            // The profile's first name is Bob's name until he chooses one.
            let me = try await client.json(.get, "/v1/me", token: bob)
            #expect(me.object["displayName"] as? String == "Robert")
            let chosen = try await client.json(.patch, "/v1/me", body: #"{"displayName": "Bobby T."}"#, token: bob)
            #expect(chosen.status == .ok && chosen.object["displayName"] as? String == "Bobby T.", "\(chosen.body)")
            #expect(try await client.json(.patch, "/v1/me", body: #"{"displayName": "a\u0000b"}"#, token: bob).status.code == 422)
            #expect(try await client.json(.patch, "/v1/me", body: #"{"displayName": "\#(String(repeating: "x", count: 41))"}"#, token: bob).status.code == 422)
            #expect(try await client.json(.patch, "/v1/me", body: #"{}"#, token: bob).object["displayName"] as? String == "Bobby T.")

            // Bob plans one class and registers in another; both private for now.
            let saved = try await client.json(.post, "/v1/me/schedules", body: #"{"name":"Fall plan","term":"\#(term)","classIds":[\#(planned)]}"#, token: bob)
            #expect(saved.status == .created && saved.object["visibility"] as? String == "private", "\(saved.body)")
            let scheduleID = try #require(saved.object["id"] as? Int)
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":\#(enrolled)}"#, token: bob).status == .created)

            // Friends: Ada asks, Bob accepts.
            #expect(try await client.json(.post, "/v1/me/friends/requests", body: #"{"username":"bob"}"#, token: ada).status == .accepted)
            let request = try #require(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: bob)).first)
            #expect(request["displayName"] as? String == "ada", "a sender with no name shows their username to the one they asked")
            #expect(try await client.json(.post, "/v1/me/friends/requests/\(try #require(request["id"] as? Int))/accept", token: bob).status == .ok)

            // Private: nothing to see, not even on a class list.
            var plans = try Self.items(try await client.json(.get, "/v1/me/friends/schedules?term=\(term)", token: ada))
            #expect(plans.count == 1 && plans[0]["displayName"] as? String == "Bobby T.")
            #expect((plans[0]["schedules"] as? [Any])?.isEmpty == true && plans[0]["enrolled"] == nil)
            #expect(try await Self.friendsOn(client, planned, token: ada) == nil)

            // Bob shows the plan to friends and shares his enrollments.
            let shown = try await client.json(.patch, "/v1/me/schedules/\(scheduleID)", body: #"{"visibility":"friends"}"#, token: bob)
            #expect(shown.status == .ok && shown.object["visibility"] as? String == "friends", "\(shown.body)")
            #expect(try await client.json(.patch, "/v1/me/schedules/\(scheduleID)", body: #"{"visibility":"public"}"#, token: bob).status.code == 422)
            let sharing = try await client.json(.put, "/v1/me/registration/sharing", body: #"{"shareEnrollments": true}"#, token: bob)
            #expect(sharing.status == .ok && sharing.object["shareEnrollments"] as? Bool == true)
            plans = try Self.items(try await client.json(.get, "/v1/me/friends/schedules?term=\(term)", token: ada))
            let plan = try #require((plans.first?["schedules"] as? [[String: Any]])?.first)
            #expect(plan["name"] as? String == "Fall plan" && plan["id"] == nil)
            #expect((plan["classes"] as? [[String: Any]])?.map { $0["id"] as? Int } == [Int(planned)])
            #expect((plans[0]["enrolled"] as? [[String: Any]])?.map { $0["id"] as? Int } == [Int(enrolled)])
            #expect(try await Self.friendsOn(client, planned, token: ada) == ["Bobby T."])
            #expect(try await Self.friendsOn(client, enrolled, token: ada) == ["Bobby T."])
            let list = try await client.json(.get, "/v1/registration/classes?term=\(term)&limit=200", token: ada)
            let listed = try Self.items(list).first { $0["id"] as? Int == Int(planned) }
            #expect(listed?["friendCount"] as? Int == 1)
            #expect(list.headers[.cacheControl] == "private, no-store")
            // Nobody else sees Bob there: not the anonymous, not a stranger.
            #expect(try await Self.friendsOn(client, planned, token: nil) == nil)
            #expect(try await Self.friendsOn(client, planned, token: carol) == nil)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/schedules", token: carol)).isEmpty)
            #expect(try await client.json(.get, "/v1/me/schedules/\(scheduleID)", token: ada).status == .notFound, "still Bob's own")

            // Ended: the next request shows nothing (FriendsTests checks it across instances).
            #expect(try await client.json(.delete, "/v1/me/friends/\(bobID)", token: ada).status == .noContent)
            #expect(try await Self.friendsOn(client, planned, token: ada) == nil)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/schedules", token: ada)).isEmpty)

            // Friends again, then Bob blocks Ada: the same end.
            _ = try await client.json(.post, "/v1/me/friends/requests", body: #"{"username":"bob"}"#, token: ada)
            _ = try await client.json(.post, "/v1/me/friends/requests", body: #"{"username":"ada"}"#, token: bob)
            #expect(try await Self.friendsOn(client, planned, token: ada) == ["Bobby T."])
            #expect(try await client.json(.post, "/v1/me/blocks", body: #"{"username":"ada"}"#, token: bob).status == .accepted)
            #expect(try await Self.friendsOn(client, planned, token: ada) == nil)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends", token: ada)).isEmpty)
        }
    }

    @Test(arguments: GatewayBackend.all) func aSharedScheduleShowsItsOwnersDisplayNameNeverTheUsername(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let (term, planned, _) = try await Self.classes(gateway)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client in
            let saved = try await client.json(.post, "/v1/me/schedules", body: #"{"name":"Plan","term":"\#(term)","classIds":[\#(planned)]}"#, token: bob)
            let id = try #require(saved.object["id"] as? Int)
            let link = try await client.json(.post, "/v1/me/schedules/\(id)/share-links", body: #"{"expiresIn":"1d"}"#, token: bob)
            let path = try #require(link.object["path"] as? String)
            var shared = try await client.json(.get, path)
            #expect(shared.status == .ok && shared.object["ownerDisplayName"] == nil, "no name chosen and no profile: no name, not the username")
            #expect(!shared.body.contains("bob"))
            _ = try await client.json(.patch, "/v1/me", body: #"{"displayName":"B. T."}"#, token: bob)
            shared = try await client.json(.get, path)
            #expect(shared.object["ownerDisplayName"] as? String == "B. T.")
        }
    }
}
