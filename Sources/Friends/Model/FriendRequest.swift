public import Foundation

/// A friend request as it is kept. `recipientID` is nil when the request goes nowhere (no
/// such account, or one that blocked the sender): the sender sees it like any other, so
/// nobody can tell from their requests who has an account.
public struct FriendRequest: Sendable, Equatable {
    public var id: Int64
    public var senderID: Int64
    public var recipientID: Int64?
    /// The username as the sender typed it (normalised).
    public var recipientUsername: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: Int64, senderID: Int64, recipientID: Int64?, recipientUsername: String, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.senderID = senderID
        self.recipientID = recipientID
        self.recipientUsername = recipientUsername
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Which way the request goes, seen by `accountID`.
    public func direction(for accountID: Int64) -> FriendRequestDirection {
        senderID == accountID ? .outgoing : .incoming
    }
}

/// Whether a request was sent to the student or by them.
public enum FriendRequestDirection: String, Sendable, Codable {
    case incoming, outgoing
}

/// The limits on friend requests.
public enum FriendRequestRules {
    /// Requests one account may send in any 24 hours, counted whether or not they reach anyone.
    public static let dailyLimit = 20
    public static let day: TimeInterval = 86_400
    /// A request nobody answered ends after 30 days.
    public static let lifetime: TimeInterval = 30 * 86_400
    /// The most requests, friends or blocks a list answers (the daily limit and the lifetime
    /// bound requests; friends and blocks are bounded here).
    public static let maxFriends = 1_000
    public static let maxBlocks = 1_000

    /// How a username is compared: trimmed and lower-cased, as Auth stores them.
    public static func normalized(_ username: String) -> String {
        username.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
