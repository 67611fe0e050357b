import Auth
import Contracts
import Foundation
@testable import Friends
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Storage
import TestSupport
import Testing

/// Blocks over the Friends routes, and what the module tells other modules (the circle, the
/// friends in classes) as friendships begin and end, on both backends.
@Suite("Friend blocks and the circle")
struct FriendBlockTests {
    @Test(arguments: TestBackend.all)
    func blockingEndsTheFriendshipAndSendsTheirRequestsNowhere(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        try await gateway.withRouter { client in
            try await gateway.befriend(client, (ada.token, "ada"), (bob.token, "bob"))
            #expect(try await gateway.module.circle.friends(of: ada.id).map(\.accountID) == [bob.id])

            let blocked = try await client.json(.post, "/v1/me/blocks", body: #"{"username": "bob"}"#, token: ada.token)
            let blockedNobody = try await client.json(.post, "/v1/me/blocks", body: #"{"username": "nobody"}"#, token: ada.token)
            #expect(blocked.status == .accepted)
            #expect(blocked.body == blockedNobody.body && blocked.status == blockedNobody.status)
            #expect(try await gateway.module.circle.friends(of: ada.id).isEmpty, "no friend from the next call on")
            #expect(try await gateway.module.circle.friends(of: bob.id).isEmpty)

            // Bob's request is accepted and goes nowhere.
            #expect(try await gateway.request(client, to: "ada", token: bob.token).status == .accepted)
            let adas = try FriendRequestTests.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token))
            #expect(adas.isEmpty)
            let bobs = try FriendRequestTests.items(try await client.json(.get, "/v1/me/friends/requests", token: bob.token))
            #expect(bobs.count == 1 && bobs[0]["direction"] as? String == "outgoing", "Bob sees his request like any other")

            let blocks = try FriendRequestTests.items(try await client.json(.get, "/v1/me/blocks", token: ada.token))
            #expect(blocks.count == 1 && blocks[0]["accountId"] as? Int == Int(bob.id) && blocks[0]["username"] as? String == "bob")
            #expect(try FriendRequestTests.items(try await client.json(.get, "/v1/me/blocks", token: bob.token)).isEmpty)
            #expect(try await client.json(.delete, "/v1/me/blocks/\(bob.id)", token: bob.token).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/blocks/\(bob.id)", token: ada.token).status == .noContent)
            #expect(try await client.json(.delete, "/v1/me/blocks/\(bob.id)", token: ada.token).status == .notFound)
            #expect(try await client.json(.post, "/v1/me/blocks", body: #"{"username": "ada"}"#, token: ada.token).status.code == 422)
        }
    }

    @Test(arguments: TestBackend.all)
    func decliningWithBlockBlocksTheSender(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        try await gateway.withRouter { client in
            _ = try await gateway.request(client, to: "ada", token: bob.token)
            let id = try #require(try FriendRequestTests.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token)).first?["id"] as? Int)
            #expect(try await client.json(.delete, "/v1/me/friends/requests/\(id)?block=true", token: ada.token).status == .noContent)
            let blocks = try FriendRequestTests.items(try await client.json(.get, "/v1/me/blocks", token: ada.token))
            #expect(blocks.map { $0["accountId"] as? Int } == [Int(bob.id)])
            _ = try await gateway.request(client, to: "ada", token: bob.token)
            #expect(try FriendRequestTests.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token)).isEmpty)
        }
    }

    @Test(arguments: TestBackend.all)
    func friendsInClassesComeOnlyFromFriendsAndEndWithTheFriendship(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        let carol = try await gateway.student("carol")
        // Bob and Carol both take class 7; only Bob is Ada's friend.
        gateway.classes.set([7, 8], for: bob.id)
        gateway.classes.set([7], for: carol.id)
        try await gateway.withRouter { client in
            #expect(try await gateway.module.circle.friendsInClasses([7, 8, 9], for: ada.id).isEmpty, "no friends, nothing")
            try await gateway.befriend(client, (ada.token, "ada"), (bob.token, "bob"))
            _ = try await gateway.auth.chooseDisplayName("Bobby", accountID: bob.id)
            let taken = try await gateway.module.circle.friendsInClasses([7, 8, 9], for: ada.id)
            #expect(taken.keys.sorted() == [7, 8])
            #expect(taken[7]?.friends.map(\.displayName) == ["Bobby"] && taken[7]?.count == 1)
            #expect(taken[9] == nil)
            #expect(try await client.json(.delete, "/v1/me/friends/\(bob.id)", token: ada.token).status == .noContent)
            #expect(try await gateway.module.circle.friendsInClasses([7, 8], for: ada.id).isEmpty)
        }
    }

    /// What one instance answers about friends follows a change made on another at once:
    /// nothing is cached between the friendship rows and the answer.
    @Test(arguments: TestBackend.all)
    func anotherInstanceSeesAFriendshipEndAtOnce(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let second = try gateway.secondInstance()
        defer { second.cleanUp() }
        let ada = try await gateway.student("ada")
        let bob = try await gateway.student("bob")
        gateway.classes.set([7], for: bob.id)
        try await gateway.withRouter { client in
            try await second.withRouter { other in
                try await gateway.befriend(client, (ada.token, "ada"), (bob.token, "bob"))
                #expect(try await second.module.circle.friendsInClasses([7], for: ada.id)[7]?.count == 1)
                #expect(try FriendRequestTests.items(try await other.json(.get, "/v1/me/friends", token: ada.token)).count == 1)
                // Unfriended on the first instance: the second sees it on its next request.
                #expect(try await client.json(.delete, "/v1/me/friends/\(bob.id)", token: ada.token).status == .noContent)
                #expect(try await second.module.circle.friendsInClasses([7], for: ada.id).isEmpty)
                #expect(try await second.module.circle.friends(of: bob.id).isEmpty)
                #expect(try FriendRequestTests.items(try await other.json(.get, "/v1/me/friends", token: ada.token)).isEmpty)
                // Friends again through the second instance, then a block on the first.
                try await gateway.befriend(other, (ada.token, "ada"), (bob.token, "bob"))
                #expect(try await gateway.module.circle.friends(of: ada.id).map(\.accountID) == [bob.id])
                #expect(try await client.json(.post, "/v1/me/blocks", body: #"{"username":"ada"}"#, token: bob.token).status == .accepted)
                #expect(try await second.module.circle.friendsInClasses([7], for: ada.id).isEmpty)
                #expect(try await second.module.circle.friends(of: ada.id).isEmpty)
            }
        }
    }

    @Test(arguments: TestBackend.all)
    func aClassShowsAtMostTwentyFriendsAndCountsThemAll(_ backend: TestBackend) async throws {
        let gateway = try await FriendsGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.student("ada")
        try await gateway.withRouter { client in
            for index in 0..<25 {
                let friend = try await gateway.student(String(format: "friend%02d", index))
                gateway.classes.set([42], for: friend.id)
                // Each asks Ada (accepting costs Ada none of her 20 requests a day).
                _ = try await gateway.request(client, to: "ada", token: friend.token)
            }
            for request in try FriendRequestTests.items(try await client.json(.get, "/v1/me/friends/requests", token: ada.token)) {
                let id = try #require(request["id"] as? Int)
                #expect(try await client.json(.post, "/v1/me/friends/requests/\(id)/accept", token: ada.token).status == .ok)
            }
            let taken = try #require(try await gateway.module.circle.friendsInClasses([42], for: ada.id)[42])
            #expect(taken.count == 25)
            #expect(taken.friends.count == 20)
            #expect(taken.friends.map(\.displayName) == (0..<20).map { String(format: "friend%02d", $0) }, "by name")
        }
    }
}
