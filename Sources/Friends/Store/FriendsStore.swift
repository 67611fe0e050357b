public import Contracts
public import Foundation

/// Everything the Friends module keeps, behind one protocol, each method inside the caller's
/// transaction. Every read names the account it is for, so one student's requests, friends and
/// blocks are never another's.
public protocol FriendsStoring: Sendable {
    // MARK: The daily limit

    /// Notes that `senderID` sent a request at `now`, forgetting their sends before `forgettingBefore`.
    func logSend(senderID: Int64, at now: Date, forgettingBefore: Date, in transaction: any StoreTransaction) throws
    /// How many requests `senderID` sent since `since`.
    func sends(senderID: Int64, since: Date, in transaction: any StoreTransaction) throws -> Int

    // MARK: Requests

    func insertRequest(
        senderID: Int64, recipientID: Int64?, recipientUsername: String, at now: Date, expiresAt: Date, in transaction: any StoreTransaction
    ) throws -> FriendRequest
    /// The live request from `senderID` to the username, if there is one.
    func liveRequest(senderID: Int64, recipientUsername: String, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest?
    /// The live request from `senderID` that reached `recipientID`, if there is one.
    func liveRequest(senderID: Int64, recipientID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest?
    /// The live requests `accountID` sent, and those that reached them, oldest first.
    func liveRequests(involving accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [FriendRequest]
    /// One live request that `accountID` sent or received.
    func liveRequest(id: Int64, involving accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> FriendRequest?
    func deleteRequest(id: Int64, in transaction: any StoreTransaction) throws
    /// Deletes every request between the two accounts, either way.
    func deleteRequests(between first: Int64, and second: Int64, in transaction: any StoreTransaction) throws
    /// Deletes requests that expired at or before `now`; how many.
    @discardableResult
    func deleteExpiredRequests(at now: Date, in transaction: any StoreTransaction) throws -> Int

    // MARK: Friendships

    /// Makes the two accounts friends both ways (nothing when they already are).
    func befriend(_ first: Int64, _ second: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Ends the friendship both ways; false when there was none.
    func unfriend(_ first: Int64, _ second: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// The account's friends, oldest friendship first, at most `limit`.
    func friends(of accountID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Friendship]
    func areFriends(_ first: Int64, _ second: Int64, in transaction: any StoreTransaction) throws -> Bool

    // MARK: Blocks

    func block(blockerID: Int64, blockedID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Lifts a block; false when there was none.
    func unblock(blockerID: Int64, blockedID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Whom the account blocked, oldest first, at most `limit`.
    func blocks(of blockerID: Int64, limit: Int, in transaction: any StoreTransaction) throws -> [Block]
    func hasBlocked(_ blockerID: Int64, _ blockedID: Int64, in transaction: any StoreTransaction) throws -> Bool
}
