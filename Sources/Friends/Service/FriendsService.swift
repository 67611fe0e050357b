public import Contracts
public import Foundation
public import GatewayCore
public import Storage

/// Friend requests, friendships and blocks: the use cases behind `/v1/me/friends` and
/// `/v1/me/blocks`. Whether an account exists is never told: a request or a block answers the
/// same whoever the username belongs to, or whether it belongs to anyone.
public struct FriendsService: Sendable {
    let transactions: any TransactionRunner
    let store: any FriendsStoring
    let accounts: any AccountDirectory
    let clock: any GatewayClock

    public init(transactions: any TransactionRunner, store: any FriendsStoring, accounts: any AccountDirectory, clock: any GatewayClock) {
        self.transactions = transactions
        self.store = store
        self.accounts = accounts
        self.clock = clock
    }

    /// The longest username a request may name (an email address, as Auth allows).
    static let maxUsernameLength = 254

    /// Sends a request to `username`, counted against the sender's daily limit whatever
    /// becomes of it. It reaches the account only if there is one, it is enabled and it has not
    /// blocked the sender; a request both ways makes the two friends.
    public func sendRequest(from senderID: Int64, to username: String) async throws {
        let name = FriendRequestRules.normalized(username)
        guard !name.isEmpty, name.count <= Self.maxUsernameLength else { throw FriendsError.invalidUsername }
        let now = clock.now()
        let (store, accounts) = (self.store, self.accounts)
        try await transactions.write { db in
            guard try accounts.account(id: senderID, in: db)?.username != name else { throw FriendsError.ownAccount }
            let since = now.addingTimeInterval(-FriendRequestRules.day)
            guard try store.sends(senderID: senderID, since: since, in: db) < FriendRequestRules.dailyLimit else {
                throw FriendsError.requestLimit(retryAfterSeconds: 3600)
            }
            try store.logSend(senderID: senderID, at: now, forgettingBefore: since, in: db)
            try store.deleteExpiredRequests(at: now, in: db)
            let expires = now.addingTimeInterval(FriendRequestRules.lifetime)
            let target = try accounts.account(username: name, in: db).flatMap { $0.disabled ? nil : $0.id }
            guard let target, try !store.hasBlocked(target, senderID, in: db), try !store.hasBlocked(senderID, target, in: db) else {
                // Nowhere to go: kept like any request, so the sender's list looks the same.
                if try store.liveRequest(senderID: senderID, recipientUsername: name, at: now, in: db) == nil {
                    _ = try store.insertRequest(senderID: senderID, recipientID: nil, recipientUsername: name, at: now, expiresAt: expires, in: db)
                }
                return
            }
            if try store.areFriends(senderID, target, in: db) { return }
            if try store.liveRequest(senderID: target, recipientID: senderID, at: now, in: db) != nil {
                try store.befriend(senderID, target, at: now, in: db)
                try store.deleteRequests(between: senderID, and: target, in: db)
                return
            }
            if try store.liveRequest(senderID: senderID, recipientID: target, at: now, in: db) == nil {
                _ = try store.insertRequest(senderID: senderID, recipientID: target, recipientUsername: name, at: now, expiresAt: expires, in: db)
            }
        }
    }

    /// The student's live requests, both ways, each with the other student as far as the
    /// student may know them: a sender shows who they are; a recipient is only the username
    /// the student typed until they accept.
    public func requests(of accountID: Int64) async throws -> [FriendRequestEntry] {
        let now = clock.now()
        let (store, accounts) = (self.store, self.accounts)
        return try await transactions.read { db in
            let requests = try store.liveRequests(involving: accountID, at: now, in: db)
            let senders = requests.filter { $0.senderID != accountID }.map(\.senderID)
            let names = try accounts.displayNames(of: senders, in: db)
            return try requests.map { request in
                if request.senderID == accountID {
                    return FriendRequestEntry(request: request, direction: .outgoing, username: request.recipientUsername, displayName: nil)
                }
                let sender = try accounts.account(id: request.senderID, in: db)
                return FriendRequestEntry(
                    request: request, direction: .incoming, username: sender?.username ?? "",
                    displayName: names[request.senderID] ?? sender?.username
                )
            }
        }
    }

    /// Accepts a request the student received; they are friends from now.
    public func accept(requestID: Int64, by accountID: Int64) async throws -> FriendEntry {
        let now = clock.now()
        let (store, accounts) = (self.store, self.accounts)
        return try await transactions.write { db in
            guard let request = try store.liveRequest(id: requestID, involving: accountID, at: now, in: db), request.recipientID == accountID,
                  let sender = try accounts.account(id: request.senderID, in: db), !sender.disabled
            else { throw FriendsError.requestNotFound }
            try store.befriend(accountID, request.senderID, at: now, in: db)
            try store.deleteRequests(between: accountID, and: request.senderID, in: db)
            let name = try accounts.displayNames(of: [sender.id], in: db)[sender.id]
            return FriendEntry(accountID: sender.id, username: sender.username, displayName: name ?? sender.username, since: now)
        }
    }

    /// Declines a request the student received (and, with `block`, blocks its sender), or
    /// cancels one they sent.
    public func decline(requestID: Int64, by accountID: Int64, block: Bool) async throws {
        let now = clock.now()
        let store = self.store
        try await transactions.write { db in
            guard let request = try store.liveRequest(id: requestID, involving: accountID, at: now, in: db) else {
                throw FriendsError.requestNotFound
            }
            try store.deleteRequest(id: request.id, in: db)
            if block, request.recipientID == accountID {
                try Self.block(request.senderID, by: accountID, at: now, store: store, in: db)
            }
        }
    }

    /// The student's friends, oldest friendship first.
    public func friends(of accountID: Int64) async throws -> [FriendEntry] {
        let (store, accounts) = (self.store, self.accounts)
        return try await transactions.read { db in
            let friendships = try store.friends(of: accountID, limit: FriendRequestRules.maxFriends, in: db)
            let names = try accounts.displayNames(of: friendships.map(\.friendID), in: db)
            return try friendships.compactMap { friendship in
                guard let friend = try accounts.account(id: friendship.friendID, in: db) else { return nil }
                return FriendEntry(
                    accountID: friend.id, username: friend.username, displayName: names[friend.id] ?? friend.username, since: friendship.since
                )
            }
        }
    }

    /// Ends a friendship, both ways, at once.
    public func unfriend(_ friendID: Int64, by accountID: Int64) async throws {
        let store = self.store
        try await transactions.write { db in
            guard try store.unfriend(accountID, friendID, in: db) else { throw FriendsError.friendNotFound }
        }
    }

    /// Blocks `username`: their requests go nowhere from now, a friendship ends and requests
    /// either way are deleted. The same answer whether or not the account exists.
    public func block(username: String, by accountID: Int64) async throws {
        let name = FriendRequestRules.normalized(username)
        guard !name.isEmpty, name.count <= Self.maxUsernameLength else { throw FriendsError.invalidUsername }
        let now = clock.now()
        let (store, accounts) = (self.store, self.accounts)
        try await transactions.write { db in
            guard try accounts.account(id: accountID, in: db)?.username != name else { throw FriendsError.ownAccount }
            guard let target = try accounts.account(username: name, in: db) else { return }
            try Self.block(target.id, by: accountID, at: now, store: store, in: db)
        }
    }

    static func block(_ blockedID: Int64, by accountID: Int64, at now: Date, store: any FriendsStoring, in db: any StoreTransaction) throws {
        try store.block(blockerID: accountID, blockedID: blockedID, at: now, in: db)
        _ = try store.unfriend(accountID, blockedID, in: db)
        try store.deleteRequests(between: accountID, and: blockedID, in: db)
    }

    /// Whom the student blocked, oldest first.
    public func blocks(of accountID: Int64) async throws -> [BlockEntry] {
        let (store, accounts) = (self.store, self.accounts)
        return try await transactions.read { db in
            try store.blocks(of: accountID, limit: FriendRequestRules.maxBlocks, in: db).compactMap { block in
                guard let account = try accounts.account(id: block.blockedID, in: db) else { return nil }
                return BlockEntry(accountID: account.id, username: account.username, createdAt: block.createdAt)
            }
        }
    }

    /// Lifts a block.
    public func unblock(_ blockedID: Int64, by accountID: Int64) async throws {
        let store = self.store
        try await transactions.write { db in
            guard try store.unblock(blockerID: accountID, blockedID: blockedID, in: db) else { throw FriendsError.blockNotFound }
        }
    }
}

/// A request as the student sees it.
public struct FriendRequestEntry: Sendable, Equatable {
    public var request: FriendRequest
    public var direction: FriendRequestDirection
    public var username: String
    /// The sender's display name on an incoming request; nil on an outgoing one.
    public var displayName: String?
}

/// A friend as the student sees them.
public struct FriendEntry: Sendable, Equatable {
    public var accountID: Int64
    public var username: String
    public var displayName: String
    public var since: Date
}

/// A block as the student sees it.
public struct BlockEntry: Sendable, Equatable {
    public var accountID: Int64
    public var username: String
    public var createdAt: Date
}
