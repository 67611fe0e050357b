import Foundation

/// The JSON shapes of the Friends routes.
enum FriendsViews {
    /// What a request or a block answers, the same whoever the username belongs to.
    struct Accepted: Encodable {
        let status = "accepted"
        let detail: String
    }

    struct Request: Encodable {
        let id: Int64
        let direction: FriendRequestDirection
        let username: String
        let displayName: String?
        let createdAt: Date
        let expiresAt: Date

        init(_ entry: FriendRequestEntry) {
            id = entry.request.id
            direction = entry.direction
            username = entry.username
            displayName = entry.displayName
            createdAt = entry.request.createdAt
            expiresAt = entry.request.expiresAt
        }
    }

    struct Friend: Encodable {
        let accountId: Int64
        let displayName: String
        let username: String
        let since: Date

        init(_ entry: FriendEntry) {
            accountId = entry.accountID
            displayName = entry.displayName
            username = entry.username
            since = entry.since
        }
    }

    struct Blocked: Encodable {
        let accountId: Int64
        let username: String
        let createdAt: Date

        init(_ entry: BlockEntry) {
            accountId = entry.accountID
            username = entry.username
            createdAt = entry.createdAt
        }
    }
}
