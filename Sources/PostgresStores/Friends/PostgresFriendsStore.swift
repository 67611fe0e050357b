public import Contracts
public import Foundation
public import Friends
import PostgresNIO
import PostgresStorage

/// ``FriendsStoring`` on PostgreSQL. Making a friendship locks nothing: its two rows are one
/// statement, and a request both ways at once befriends twice into the same rows.
public struct PostgresFriendsStore: FriendsStoring {
    public init() {}

    static let requestColumns = "id, sender_id, recipient_id, recipient_username, created_at, expires_at"

    static func request(_ row: PostgresRow) throws -> FriendRequest {
        let (id, sender, recipient, username, created, expires) = try row.decode((Int64, Int64, Int64?, String, Date, Date).self)
        return FriendRequest(id: id, senderID: sender, recipientID: recipient, recipientUsername: username, createdAt: created, expiresAt: expires)
    }

    public func logSend(senderID: Int64, at now: Date, forgettingBefore: Date, in transaction: any StoreTransaction) throws {
        let postgres = try transaction.postgres()
        try postgres.execute("DELETE FROM friends_request_log WHERE sender_id = \(senderID) AND sent_at < \(forgettingBefore)")
        try postgres.execute("INSERT INTO friends_request_log (sender_id, sent_at) VALUES (\(senderID), \(now))")
    }

    public func sends(senderID: Int64, since: Date, in transaction: any StoreTransaction) throws -> Int {
        // A lock per sender, held to the commit, orders two sends of one account, so the limit
        // holds across instances.
        let postgres = try transaction.postgres()
        _ = try postgres.query("SELECT pg_advisory_xact_lock(hashtextextended('friends.send', \(senderID)))")
        return try postgres.query("SELECT COUNT(*)::bigint FROM friends_request_log WHERE sender_id = \(senderID) AND sent_at >= \(since)")
            .first.map { Int(try $0.decode(Int64.self)) } ?? 0
    }

    public func insertRequest(
        senderID: Int64, recipientID: Int64?, recipientUsername: String, at now: Date, expiresAt: Date, in transaction: any StoreTransaction
    ) throws -> FriendRequest {
        let id = try transaction.postgres().query("""
            INSERT INTO friends_requests (sender_id, recipient_id, recipient_username, created_at, expires_at)
            VALUES (\(senderID), \(recipientID), \(recipientUsername), \(now), \(expiresAt)) RETURNING id
            """).first?.decode(Int64.self) ?? 0
        return FriendRequest(id: id, senderID: senderID, recipientID: recipientID, recipientUsername: recipientUsername, createdAt: now, expiresAt: expiresAt)
    }

    public func liveRequest(senderID: Int64, recipientUsername: String, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest? {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.requestColumns) FROM friends_requests
            WHERE sender_id = \(senderID) AND recipient_username = \(recipientUsername) AND expires_at > \(now)
            """).first.map(Self.request)
    }

    public func liveRequest(senderID: Int64, recipientID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest? {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.requestColumns) FROM friends_requests
            WHERE sender_id = \(senderID) AND recipient_id = \(recipientID) AND expires_at > \(now)
            """).first.map(Self.request)
    }

    public func liveRequests(involving accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [FriendRequest] {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.requestColumns) FROM friends_requests
            WHERE (sender_id = \(accountID) OR recipient_id = \(accountID)) AND expires_at > \(now) ORDER BY id
            """).map(Self.request)
    }

    public func liveRequest(id: Int64, involving accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest? {
        try transaction.postgres().query("""
            SELECT \(unescaped: Self.requestColumns) FROM friends_requests
            WHERE id = \(id) AND (sender_id = \(accountID) OR recipient_id = \(accountID)) AND expires_at > \(now)
            """).first.map(Self.request)
    }

    public func deleteRequest(id: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("DELETE FROM friends_requests WHERE id = \(id)")
    }

    public func deleteRequests(between first: Int64, and second: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            DELETE FROM friends_requests
            WHERE (sender_id = \(first) AND recipient_id = \(second)) OR (sender_id = \(second) AND recipient_id = \(first))
            """)
    }

    public func deleteExpiredRequests(at now: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM friends_requests WHERE expires_at <= \(now)")
    }

    public func befriend(_ first: Int64, _ second: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO friends_friendships (account_id, friend_id, since) VALUES (\(first), \(second), \(now)), (\(second), \(first), \(now))
            ON CONFLICT DO NOTHING
            """)
    }

    public func unfriend(_ first: Int64, _ second: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("""
            DELETE FROM friends_friendships
            WHERE (account_id = \(first) AND friend_id = \(second)) OR (account_id = \(second) AND friend_id = \(first))
            """) > 0
    }

    public func friends(of accountID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Friendship] {
        try transaction.postgres().query("""
            SELECT friend_id, since FROM friends_friendships WHERE account_id = \(accountID) ORDER BY since, friend_id LIMIT \(limit)
            """).map { row in
            let (friend, since) = try row.decode((Int64, Date).self)
            return Friendship(friendID: friend, since: since)
        }
    }

    public func areFriends(_ first: Int64, _ second: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query("SELECT 1 FROM friends_friendships WHERE account_id = \(first) AND friend_id = \(second)").isEmpty
    }

    public func block(blockerID: Int64, blockedID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO friends_blocks (blocker_id, blocked_id, created_at) VALUES (\(blockerID), \(blockedID), \(now)) ON CONFLICT DO NOTHING
            """)
    }

    public func unblock(blockerID: Int64, blockedID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM friends_blocks WHERE blocker_id = \(blockerID) AND blocked_id = \(blockedID)") > 0
    }

    public func blocks(of blockerID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Block] {
        try transaction.postgres().query("""
            SELECT blocked_id, created_at FROM friends_blocks WHERE blocker_id = \(blockerID) ORDER BY created_at, blocked_id LIMIT \(limit)
            """).map { row in
            let (blocked, created) = try row.decode((Int64, Date).self)
            return Block(blockedID: blocked, createdAt: created)
        }
    }

    public func hasBlocked(_ blockerID: Int64, _ blockedID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try !transaction.postgres().query("SELECT 1 FROM friends_blocks WHERE blocker_id = \(blockerID) AND blocked_id = \(blockedID)").isEmpty
    }
}
