public import Foundation

/// One side of a friendship: the friend and since when. A friendship is kept both ways and
/// ends both ways at once.
public struct Friendship: Sendable, Equatable {
    public var friendID: Int64
    public var since: Date

    public init(friendID: Int64, since: Date) {
        self.friendID = friendID
        self.since = since
    }
}

/// A student someone blocked: their requests go nowhere, and a friendship between them ends.
public struct Block: Sendable, Equatable {
    public var blockedID: Int64
    public var createdAt: Date

    public init(blockedID: Int64, createdAt: Date) {
        self.blockedID = blockedID
        self.createdAt = createdAt
    }
}
