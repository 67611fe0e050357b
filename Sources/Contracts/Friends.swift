/// A friend as other modules see one: the account and the name to show. Friends see each
/// other's usernames, so the name falls back to the username where the student chose none.
public struct FriendRef: Sendable, Equatable, Hashable {
    public var accountID: Int64
    public var displayName: String
    public var username: String

    public init(accountID: Int64, displayName: String, username: String) {
        self.accountID = accountID
        self.displayName = displayName
        self.username = username
    }
}

/// Who a student's friends are, answered by the Friends module. Every call reads the
/// friendships as they are now (no cache), so an ended friendship or a block takes effect on
/// the next request, on every instance.
public protocol FriendCircle: Sendable {
    /// The account's friends, by display name.
    func friends(of accountID: Int64) async throws -> [FriendRef]

    /// The names other students see these accounts by (never the username); accounts whose
    /// student has neither chosen a name nor a registration profile are absent.
    func displayNames(of accountIDs: [Int64]) async throws -> [Int64: String]
}

/// Classes students let their friends see, by account: answered by Registration (enrollments
/// the student shares) and Scheduling (classes of friends-visible saved schedules). The
/// caller asks only for accounts that are friends of the one who asks.
public protocol FriendVisibleClasses: Sendable {
    func classesVisibleToFriends(of accountIDs: [Int64]) async throws -> [Int64: Set<Int64>]
}

/// The enrollments students share with friends (``FriendVisibleClasses`` for enrollments
/// alone), answered by Registration.
public protocol SharedEnrollments: Sendable {
    /// The enrolled class ids of those of `accountIDs` who share their enrollments; those who
    /// don't are absent.
    func sharedEnrollments(of accountIDs: [Int64]) async throws -> [Int64: [Int64]]
}

/// Which of a student's friends take a class, for the catalog's class lists.
public struct ClassFriends: Sendable, Equatable {
    /// At most ``ClassFriends/shownLimit`` friends, by display name.
    public var friends: [FriendRef]
    /// How many friends take it in all.
    public var count: Int

    public static let shownLimit = 20

    public init(friends: [FriendRef], count: Int) {
        self.friends = friends
        self.count = count
    }
}

/// The friends in each of some classes, answered by the Friends module for the catalog.
public protocol FriendsInClasses: Sendable {
    /// For each of `classIDs` that any friend of `accountID` takes (enrolled and shared, or in a
    /// friends-visible schedule), those friends; classes no friend takes are absent.
    func friendsInClasses(_ classIDs: [Int64], for accountID: Int64) async throws -> [Int64: ClassFriends]
}
