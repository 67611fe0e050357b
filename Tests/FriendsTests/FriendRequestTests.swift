import Foundation
@testable import Friends
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Storage
import TestSupport
import Testing

/// Friend requests over the Friends routes on both backends: one answer whoever the username
/// belongs to, the daily limit, accepting, declining, cancelling, expiry and unfriending.
@Suite("Friend requests")
struct FriendRequestTests {
    /// A reply without what differs per request: what a sender could tell two requests apart by.
    static func shape(_ reply: HTTPReply) -> String {
        "\(reply.status.code) \(reply.body) \(reply.headers[.contentType] ?? "")"
    }

    static func items(_ reply: HTTPReply) throws -> [[String: Any]] {
        try #require(reply.object["items"] as? [[String: Any]], "\(reply.status) \(reply.body)")
    }

    @Test(arguments: TestBackend.all)
    func aRequestAnswersTheSameToAnExistingAMissingAndABlockingAccount(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        let eve = try await gateway.student("eve")
        try await gateway.withRouter { client in
            // Eve blocks Ada before Ada asks.
            let blocked = try await client.json(.post, "/v1/me/blocks", body: #"{"username": "ada"}"#, token: eve.token)
            #expect(blocked.status == .accepted)

            let toBob = try await gateway.request(client, to: "bob", token: ada.token)
            let toNobody = try await gateway.request(client, to: "nobody-here", token: ada.token)
            let toEve = try await gateway.request(client, to: "eve", token: ada.token)
            #expect(toBob.status == .accepted)
            #expect(Self.shape(toBob) == Self.shape(toNobody))
            #expect(Self.shape(toBob) == Self.shape(toEve))

            // Ada's outgoing list looks the same for all three: the username she typed, no name.
            let outgoing = try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token))
            #expect(outgoing.map { $0["username"] as? String } == ["bob", "nobody-here", "eve"])
            #expect(outgoing.allSatisfy { $0["direction"] as? String == "outgoing" && $0["displayName"] == nil && $0["createdAt"] is String })
            #expect(Set(outgoing.map { Set($0.keys) }).count == 1, "every entry has the same fields")

            // Only Bob got one; Eve, who blocked Ada, did not.
            let bobs = try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: bob.token))
            #expect(bobs.count == 1 && bobs[0]["direction"] as? String == "incoming" && bobs[0]["username"] as? String == "ada")
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: eve.token)).isEmpty)
        }
    }

    @Test(arguments: TestBackend.all)
    func acceptingMakesFriendsBothWaysAndUnfriendingEndsItAtOnce(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        try await gateway.withRouter { client in
            _ = try await gateway.request(client, to: "Bob ", token: ada.token)
            let incoming = try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: bob.token))
            let id = try #require(incoming.first?["id"] as? Int)

            // Ada can't accept her own request, and nobody else sees it.
            #expect(try await client.json(.post, "/v1/me/friends/requests/\(id)/accept", token: ada.token).status == .notFound)
            let carol = try await gateway.student("carol")
            #expect(try await client.json(.post, "/v1/me/friends/requests/\(id)/accept", token: carol.token).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/friends/requests/\(id)", token: carol.token).status == .notFound)

            let accepted = try await client.json(.post, "/v1/me/friends/requests/\(id)/accept", token: bob.token)
            #expect(accepted.status == .ok, "\(accepted.body)")
            #expect(accepted.object["accountId"] as? Int == Int(ada.id) && accepted.object["username"] as? String == "ada")
            for (token, other) in [(ada.token, bob.id), (bob.token, ada.id)] {
                let friends = try Self.items(try await client.json(.get, "/v1/me/friends", token: token))
                #expect(friends.count == 1 && friends[0]["accountId"] as? Int == Int(other) && friends[0]["since"] is String)
            }
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token)).isEmpty, "the request is answered")
            #expect(try await client.json(.post, "/v1/me/friends/requests/\(id)/accept", token: bob.token).status == .notFound)

            // Carol can't end a friendship she is not in; Bob ends it for both.
            #expect(try await client.json(.delete, "/v1/me/friends/\(ada.id)", token: carol.token).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/friends/\(ada.id)", token: bob.token).status == .noContent)
            for token in [ada.token, bob.token] {
                #expect(try Self.items(try await client.json(.get, "/v1/me/friends", token: token)).isEmpty)
            }
            #expect(try await client.json(.delete, "/v1/me/friends/\(ada.id)", token: bob.token).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/friends/not-a-number", token: bob.token).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.all)
    func requestsBothWaysMakeFriendsAndARepeatedRequestIsOne(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        try await gateway.withRouter { client in
            _ = try await gateway.request(client, to: "bob", token: ada.token)
            _ = try await gateway.request(client, to: "bob", token: ada.token)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: bob.token)).count == 1)
            _ = try await gateway.request(client, to: "ada", token: bob.token)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends", token: ada.token)).count == 1)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token)).isEmpty)

            let own = try await gateway.request(client, to: "ada", token: ada.token)
            #expect(own.status.code == 422, "\(own.body)")
            let empty = try await gateway.request(client, to: "   ", token: ada.token)
            #expect(empty.status.code == 422)
            let long = try await gateway.request(client, to: String(repeating: "x", count: 255), token: ada.token)
            #expect(long.status.code == 422)
            #expect(try await client.json(.post, "/v1/me/friends/requests", body: #"{"user": "bob"}"#, token: ada.token).status == .badRequest)
            #expect(try await client.json(.post, "/v1/me/friends/requests", body: #"{"username": "bob"}"#).status == .unauthorized)
        }
    }

    @Test(arguments: TestBackend.all)
    func twentyRequestsADayWhetherOrNotTheyReachAnyone(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        try await gateway.withRouter { client in
            for index in 0..<19 { #expect(try await gateway.request(client, to: "nobody-\(index)", token: ada.token).status == .accepted) }
            #expect(try await gateway.request(client, to: "bob", token: ada.token).status == .accepted)
            let refused = try await gateway.request(client, to: "bob", token: ada.token)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(refused.contentType == "application/problem+json")
            // Another account has its own 20.
            #expect(try await gateway.request(client, to: "ada", token: bob.token).status == .accepted)
            // A day later Ada may ask again.
            gateway.clock.advance(by: FriendRequestRules.day + 1)
            #expect(try await gateway.request(client, to: "carol", token: try await gateway.token("ada")).status == .accepted)
        }
    }

    @Test(arguments: TestBackend.all)
    func declineCancelAndExpiry(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        let carol = try await gateway.student("carol")
        try await gateway.withRouter { client in
            _ = try await gateway.request(client, to: "bob", token: ada.token)
            _ = try await gateway.request(client, to: "carol", token: ada.token)
            let toBob = try #require(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: bob.token)).first?["id"] as? Int)
            // Bob declines; Ada cancels the one to Carol.
            #expect(try await client.json(.delete, "/v1/me/friends/requests/\(toBob)", token: bob.token).status == .noContent)
            let toCarol = try #require(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token)).first?["id"] as? Int)
            #expect(try await client.json(.delete, "/v1/me/friends/requests/\(toCarol)", token: ada.token).status == .noContent)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: carol.token)).isEmpty)
            #expect(try await client.json(.delete, "/v1/me/friends/requests/\(toCarol)?block=maybe", token: ada.token).status == .badRequest)

            // A request nobody answers ends after 30 days.
            _ = try await gateway.request(client, to: "carol", token: ada.token)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: carol.token)).count == 1)
            gateway.clock.advance(by: FriendRequestRules.lifetime + 1)
            let (carolNow, adaNow) = (try await gateway.token("carol"), try await gateway.token("ada"))
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: carolNow)).isEmpty)
            #expect(try Self.items(try await client.json(.get, "/v1/me/friends/requests", token: adaNow)).isEmpty)
        }
    }
}
