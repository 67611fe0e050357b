public import Contracts
public import Foundation

/// Numbers that texted STOP, across every account: one row per number, known only by its keyed
/// hash (``RecipientQuota/key(_:channel:secret:)`` with ``ConfirmableChannel/sms``, the key the
/// confirmation quota counts under), never the number. A muted number is sent nothing, not even
/// a confirmation code, until it texts START. Every method runs in the caller's transaction.
public protocol SMSMuteStoring: Sendable {
    /// Records that the number opted out (again: the time is kept from the first).
    func mute(recipient: Data, at now: Date, in transaction: any StoreTransaction) throws
    /// Forgets the opt-out; false when the number was not muted.
    @discardableResult
    func unmute(recipient: Data, in transaction: any StoreTransaction) throws -> Bool
    func isMuted(recipient: Data, in transaction: any StoreTransaction) throws -> Bool
}
