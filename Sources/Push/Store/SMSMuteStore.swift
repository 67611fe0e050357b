public import Contracts
public import Foundation

/// Numbers that texted STOP, across every account: one row per number, known only by its keyed
/// hash (``RecipientQuota/key(_:channel:secret:)`` with ``ConfirmableChannel/sms``, the key the
/// confirmation quota counts under), never the number. A muted number is sent nothing, not even
/// a confirmation code, until it texts START. Also the carrier's inbound messages already
/// applied (by `MessageSid`, so a replayed post changes nothing) and, per number, the order of
/// the last STOP or START applied (so a START older than a STOP can't undo it). Every method
/// runs in the caller's transaction.
public protocol SMSMuteStoring: Sendable {
    /// Records that the number opted out (again: the time is kept from the first).
    func mute(recipient: Data, at now: Date, in transaction: any StoreTransaction) throws
    /// Forgets the opt-out; false when the number was not muted.
    @discardableResult
    func unmute(recipient: Data, in transaction: any StoreTransaction) throws -> Bool
    func isMuted(recipient: Data, in transaction: any StoreTransaction) throws -> Bool

    /// Records an inbound message by its provider id (`MessageSid`) received at `at`; false
    /// when that id was already recorded (a repeat: nothing else may change).
    func recordInbound(messageSID: String, at: Date, in transaction: any StoreTransaction) throws -> Bool
    /// The last STOP or START applied for the number, and its order (when the gateway received it).
    func lastKeyword(recipient: Data, in transaction: any StoreTransaction) throws -> (keyword: SMSKeyword, at: Date)?
    /// Keeps `keyword` at `at` (from message `messageSID`) as the number's last applied one.
    func setLastKeyword(recipient: Data, keyword: SMSKeyword, messageSID: String, at: Date, in transaction: any StoreTransaction) throws
}
