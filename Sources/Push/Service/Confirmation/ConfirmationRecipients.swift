public import Contracts
public import Crypto
public import Foundation
public import Logging
import Metrics

/// ``RecipientQuota`` applied in the caller's transaction, for any ``ConfirmableChannel``:
/// a confirmation message may go to an address only while that address had fewer than
/// ``RecipientQuota/perRecipient`` in 24 hours, whichever accounts asked, and while the whole
/// gateway sent fewer than `hourlyCap` on the channel in the last hour.
///
/// Reaching the hourly cap counts `push_confirmation_cap_reached_total{channel}` and logs a
/// warning: it means someone is using the gateway to message many addresses, or the cap is too
/// low for the campus (`--confirmations-per-hour`).
public struct ConfirmationRecipients: Sendable {
    let store: any ConfirmationQuotaStoring
    let secret: SymmetricKey
    let hourlyCap: Int
    let logger: Logger

    public init(store: any ConfirmationQuotaStoring, secret: SymmetricKey, hourlyCap: Int, logger: Logger = Logger(label: "push.confirmations")) {
        self.store = store
        self.secret = secret
        self.hourlyCap = hourlyCap
        self.logger = logger
    }

    /// Throws ``PushError/confirmationMailLimit(retryAfterSeconds:)`` when the recipient had its
    /// share, ``PushError/confirmationsPaused(retryAfterSeconds:)`` when the gateway did.
    public func admit(_ channel: ConfirmableChannel, address: String, now: Date, in db: any StoreTransaction) throws {
        let recipient = RecipientQuota.key(address, channel: channel, secret: secret)
        let sends = try store.sends(channel: channel, recipient: recipient, since: now.addingTimeInterval(-RecipientQuota.window), in: db)
        let hourly = try store.sendCount(channel: channel, since: now.addingTimeInterval(-RecipientQuota.hourlyWindow), in: db)
        switch RecipientQuota.decide(recipientSends: sends, hourlySends: hourly.count, oldestHourlySend: hourly.oldest, hourlyCap: hourlyCap, now: now) {
        case .allowed:
            return
        case .recipientLimit(let seconds):
            throw PushError.confirmationMailLimit(retryAfterSeconds: seconds)
        case .hourlyCap(let seconds):
            Counter(label: "push_confirmation_cap_reached_total", dimensions: [("channel", channel.rawValue)]).increment()
            logger.warning("confirmation cap reached: no more confirmations go out until the hour frees one", metadata: [
                "channel": "\(channel.rawValue)", "cap": "\(hourlyCap)", "retry_after_s": "\(seconds)",
            ])
            throw PushError.confirmationsPaused(retryAfterSeconds: seconds)
        }
    }

    /// Counts a confirmation about to be queued to `address`.
    public func record(_ channel: ConfirmableChannel, address: String, now: Date, in db: any StoreTransaction) throws {
        try store.recordSend(channel: channel, recipient: RecipientQuota.key(address, channel: channel, secret: secret), at: now, in: db)
    }
}
