public import Contracts
public import Foundation

/// The confirmation messages the gateway sent, per recipient and per channel, for
/// ``RecipientQuota``, and per client network for texts (``SMSQuota``): one table every
/// account and every instance counts in. A recipient and a network are keyed hashes, never an
/// address. Every method runs in the caller's transaction.
public protocol ConfirmationQuotaStoring: Sendable {
    /// The server secret recipients are hashed under (made once by the migration).
    func recipientSecret(in transaction: any StoreTransaction) throws -> Data
    /// When confirmations went to this recipient on this channel after `since`.
    func sends(channel: ConfirmableChannel, recipient: Data, since: Date, in transaction: any StoreTransaction) throws -> [Date]
    /// How many confirmations went out on this channel after `since`, and the oldest of them.
    func sendCount(channel: ConfirmableChannel, since: Date, in transaction: any StoreTransaction) throws -> (count: Int, oldest: Date?)
    /// The confirmations this client network caused on this channel after `since`, oldest first,
    /// each with whether it was a new device's first.
    func networkSends(channel: ConfirmableChannel, network: Data, since: Date, in transaction: any StoreTransaction) throws -> [SMSQuota.Send]
    /// Counts a confirmation to this recipient at `at`, caused from `network` (nil: not counted
    /// per network) for a new device or a resend, and forgets sends older than
    /// ``RecipientQuota/window``.
    func recordSend(
        channel: ConfirmableChannel, recipient: Data, network: Data?, newDevice: Bool, at: Date, in transaction: any StoreTransaction
    ) throws
}

extension ConfirmationQuotaStoring {
    /// Counts a confirmation to this recipient, not per network.
    public func recordSend(channel: ConfirmableChannel, recipient: Data, at: Date, in transaction: any StoreTransaction) throws {
        try recordSend(channel: channel, recipient: recipient, network: nil, newDevice: false, at: at, in: transaction)
    }
}
