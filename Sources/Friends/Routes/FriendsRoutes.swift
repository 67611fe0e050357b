import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird
public import ModuleKit

/// The signed-in student's friends: requests at `/v1/me/friends/requests`, friends at
/// `/v1/me/friends`, blocks at `/v1/me/blocks`. Another student's request, friend or block is
/// the same 404 as one that never was.
public struct FriendsRoutes: ModuleRoutes {
    let service: FriendsService

    struct UsernameBody: Decodable { let username: String }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let requests = guarded.group(router, "v1/me/friends/requests", access: .authenticated)
        requests.post { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(UsernameBody.self, from: request, context: context)
            try await service.sendRequest(from: identity.accountID, to: body.username)
            return try GatewayJSON.response(
                FriendsViews.Accepted(detail: "If this username belongs to a student, they will see your request."), status: .accepted
            )
        }
        requests.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(["items": try await service.requests(of: identity.accountID).map(FriendsViews.Request.init)])
        }
        requests.post(":requestId/accept") { _, context in
            let identity = try context.requireIdentity()
            let friend = try await service.accept(requestID: try Self.id(context, "requestId", or: .requestNotFound), by: identity.accountID)
            return try GatewayJSON.response(FriendsViews.Friend(friend))
        }
        requests.delete(":requestId") { request, context in
            let identity = try context.requireIdentity()
            let block = try Self.flag(request, "block")
            try await service.decline(requestID: try Self.id(context, "requestId", or: .requestNotFound), by: identity.accountID, block: block)
            return Response(status: .noContent)
        }

        let friends = guarded.group(router, "v1/me/friends", access: .authenticated)
        friends.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(["items": try await service.friends(of: identity.accountID).map(FriendsViews.Friend.init)])
        }
        friends.delete(":accountId") { _, context in
            let identity = try context.requireIdentity()
            try await service.unfriend(try Self.id(context, "accountId", or: .friendNotFound), by: identity.accountID)
            return Response(status: .noContent)
        }

        let blocks = guarded.group(router, "v1/me/blocks", access: .authenticated)
        blocks.post { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(UsernameBody.self, from: request, context: context)
            try await service.block(username: body.username, by: identity.accountID)
            return try GatewayJSON.response(
                FriendsViews.Accepted(detail: "If this username belongs to a student, their requests no longer reach you."), status: .accepted
            )
        }
        blocks.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(["items": try await service.blocks(of: identity.accountID).map(FriendsViews.Blocked.init)])
        }
        blocks.delete(":accountId") { _, context in
            let identity = try context.requireIdentity()
            try await service.unblock(try Self.id(context, "accountId", or: .blockNotFound), by: identity.accountID)
            return Response(status: .noContent)
        }
    }

    /// A positive integer path parameter; anything else is the same 404 as an unknown id.
    static func id(_ context: GatewayContext, _ name: String, or missing: FriendsError) throws -> Int64 {
        guard let raw = context.parameters.get(name), let id = Int64(raw), id > 0 else { throw missing }
        return id
    }

    /// A boolean query parameter (absent: false).
    static func flag(_ request: Request, _ name: String) throws -> Bool {
        guard let raw = request.uri.queryParameters[Substring(name)] else { return false }
        switch raw.lowercased() {
        case "true", "1": return true
        case "false", "0", "": return false
        default: throw Problem.badRequest("\(name) must be true or false.", invalidFields: [name])
        }
    }
}
