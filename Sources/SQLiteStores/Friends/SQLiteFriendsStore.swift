public import Contracts
public import Foundation
public import Friends
import GRDB
import SQLiteStorage

/// ``FriendsStoring`` on SQLite.
public struct SQLiteFriendsStore: FriendsStoring {
    public init() {}

    static let requestColumns = "id, sender_id, recipient_id, recipient_username, created_at, expires_at"

    static func request(_ row: Row) -> FriendRequest {
        FriendRequest(
            id: row["id"], senderID: row["sender_id"], recipientID: row["recipient_id"], recipientUsername: row["recipient_username"],
            createdAt: row["created_at"], expiresAt: row["expires_at"]
        )
    }

    public func logSend(senderID: Int64, at now: Date, forgettingBefore: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM friends_request_log WHERE sender_id = ? AND sent_at < ?", arguments: [senderID, forgettingBefore])
        try db.execute(sql: "INSERT INTO friends_request_log (sender_id, sent_at) VALUES (?, ?)", arguments: [senderID, now])
    }

    public func sends(senderID: Int64, since: Date, in transaction: any StoreTransaction) throws -> Int {
        try Int.fetchOne(
            transaction.sqlite(), sql: "SELECT COUNT(*) FROM friends_request_log WHERE sender_id = ? AND sent_at >= ?", arguments: [senderID, since]
        ) ?? 0
    }

    public func insertRequest(
        senderID: Int64, recipientID: Int64?, recipientUsername: String, at now: Date, expiresAt: Date, in transaction: any StoreTransaction
    ) throws -> FriendRequest {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "INSERT INTO friends_requests (sender_id, recipient_id, recipient_username, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [senderID, recipientID, recipientUsername, now, expiresAt]
        )
        return FriendRequest(
            id: db.lastInsertedRowID, senderID: senderID, recipientID: recipientID, recipientUsername: recipientUsername, createdAt: now,
            expiresAt: expiresAt
        )
    }

    public func liveRequest(senderID: Int64, recipientUsername: String, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest? {
        try Row.fetchOne(
            transaction.sqlite(),
            sql: "SELECT \(Self.requestColumns) FROM friends_requests WHERE sender_id = ? AND recipient_username = ? AND expires_at > ?",
            arguments: [senderID, recipientUsername, now]
        ).map(Self.request)
    }

    public func liveRequest(senderID: Int64, recipientID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest? {
        try Row.fetchOne(
            transaction.sqlite(),
            sql: "SELECT \(Self.requestColumns) FROM friends_requests WHERE sender_id = ? AND recipient_id = ? AND expires_at > ?",
            arguments: [senderID, recipientID, now]
        ).map(Self.request)
    }

    public func liveRequests(involving accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [FriendRequest] {
        try Row.fetchAll(
            transaction.sqlite(),
            sql: """
                SELECT \(Self.requestColumns) FROM friends_requests
                WHERE (sender_id = ? OR recipient_id = ?) AND expires_at > ? ORDER BY id
                """,
            arguments: [accountID, accountID, now]
        ).map(Self.request)
    }

    public func liveRequest(id: Int64, involving accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest? {
        try Row.fetchOne(
            transaction.sqlite(),
            sql: "SELECT \(Self.requestColumns) FROM friends_requests WHERE id = ? AND (sender_id = ? OR recipient_id = ?) AND expires_at > ?",
            arguments: [id, accountID, accountID, now]
        ).map(Self.request)
    }

    public func deleteRequest(id: Int64, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(sql: "DELETE FROM friends_requests WHERE id = ?", arguments: [id])
    }

    public func deleteRequests(between first: Int64, and second: Int64, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: "DELETE FROM friends_requests WHERE (sender_id = ? AND recipient_id = ?) OR (sender_id = ? AND recipient_id = ?)",
            arguments: [first, second, second, first]
        )
    }

    public func deleteExpiredRequests(at now: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM friends_requests WHERE expires_at <= ?", arguments: [now])
        return db.changesCount
    }

    public func befriend(_ first: Int64, _ second: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: "INSERT INTO friends_friendships (account_id, friend_id, since) VALUES (?, ?, ?), (?, ?, ?) ON CONFLICT DO NOTHING",
            arguments: [first, second, now, second, first, now]
        )
    }

    public func unfriend(_ first: Int64, _ second: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "DELETE FROM friends_friendships WHERE (account_id = ? AND friend_id = ?) OR (account_id = ? AND friend_id = ?)",
            arguments: [first, second, second, first]
        )
        return db.changesCount > 0
    }

    public func friends(of accountID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Friendship] {
        try Row.fetchAll(
            transaction.sqlite().cachedStatement(sql: "SELECT friend_id, since FROM friends_friendships WHERE account_id = ? ORDER BY since, friend_id LIMIT ?"),
            arguments: [accountID, limit]
        ).map { Friendship(friendID: $0["friend_id"], since: $0["since"]) }
    }

    public func areFriends(_ first: Int64, _ second: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try Bool.fetchOne(
            transaction.sqlite(), sql: "SELECT 1 FROM friends_friendships WHERE account_id = ? AND friend_id = ?", arguments: [first, second]
        ) ?? false
    }

    public func block(blockerID: Int64, blockedID: Int64, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: "INSERT INTO friends_blocks (blocker_id, blocked_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            arguments: [blockerID, blockedID, now]
        )
    }

    public func unblock(blockerID: Int64, blockedID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM friends_blocks WHERE blocker_id = ? AND blocked_id = ?", arguments: [blockerID, blockedID])
        return db.changesCount > 0
    }

    public func blocks(of blockerID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Block] {
        try Row.fetchAll(
            transaction.sqlite(),
            sql: "SELECT blocked_id, created_at FROM friends_blocks WHERE blocker_id = ? ORDER BY created_at, blocked_id LIMIT ?",
            arguments: [blockerID, limit]
        ).map { Block(blockedID: $0["blocked_id"], createdAt: $0["created_at"]) }
    }

    public func hasBlocked(_ blockerID: Int64, _ blockedID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try Bool.fetchOne(
            transaction.sqlite(), sql: "SELECT 1 FROM friends_blocks WHERE blocker_id = ? AND blocked_id = ?", arguments: [blockerID, blockedID]
        ) ?? false
    }
}
