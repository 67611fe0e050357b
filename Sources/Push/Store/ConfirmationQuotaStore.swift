public import Contracts
public import Foundation

/// The confirmation messages the gateway sent, per recipient and per channel, for
/// ``RecipientQuota``: one table every account and every instance counts in. A recipient is a
/// keyed hash, never an address. Every method runs in the caller's transaction.
public protocol ConfirmationQuotaStoring: Sendable {
    /// The server secret recipients are hashed under (made once by the migration).
    func recipientSecret(in transaction: any StoreTransaction) throws -> Data
    /// When confirmations went to this recipient on this channel after `since`.
    func sends(channel: ConfirmableChannel, recipient: Data, since: Date, in transaction: any StoreTransaction) throws -> [Date]
    /// How many confirmations went out on this channel after `since`, and the oldest of them.
    func sendCount(channel: ConfirmableChannel, since: Date, in transaction: any StoreTransaction) throws -> (count: Int, oldest: Date?)
    /// Counts a confirmation to this recipient at `at`, and forgets sends older than
    /// ``RecipientQuota/window``.
    func recordSend(channel: ConfirmableChannel, recipient: Data, at: Date, in transaction: any StoreTransaction) throws
}
