public import Contracts
public import Crypto
public import Foundation
public import Logging
import Metrics

/// ``RecipientQuota`` applied in the caller's transaction, for any ``ConfirmableChannel``:
/// a confirmation message may go to an address only while that address had fewer than
/// ``RecipientQuota/perRecipient`` in 24 hours, whichever accounts asked, and while the whole
/// gateway sent fewer than its hourly cap on the channel in the last hour (`hourlyCap` for
/// email; texts have a quota of their own, ``SMSQuota``, smaller and shared out per client
/// network, checked before the gateway-wide cap so one network can't spend it all).
///
/// Reaching the hourly cap counts `push_confirmation_cap_reached_total{channel}` and logs a
/// warning: it means someone is using the gateway to message many addresses, or the cap is too
/// low for the campus (`--confirmations-per-hour`). A network reaching its share of texts counts
/// `push_sms_network_limit_total{limit}` (`texts` or `devices`) and logs a notice (the network
/// only as its keyed hash's first bytes).
public struct ConfirmationRecipients: Sendable {
    let store: any ConfirmationQuotaStoring
    let secret: SymmetricKey
    let hourlyCap: Int
    let sms: SMSQuota
    let logger: Logger

    public init(
        store: any ConfirmationQuotaStoring, secret: SymmetricKey, hourlyCap: Int, sms: SMSQuota? = nil,
        logger: Logger = Logger(label: "push.confirmations")
    ) {
        self.store = store
        self.secret = secret
        self.hourlyCap = hourlyCap
        self.sms = sms ?? .derived(fromEmailCap: hourlyCap)
        self.logger = logger
    }

    /// Who caused a confirmation: the client address of the request (its network is what is
    /// counted) and whether it adds a device (or resends a code to one).
    public struct Cause: Sendable, Equatable {
        public var clientAddress: String?
        public var newDevice: Bool

        public init(clientAddress: String?, newDevice: Bool) {
            self.clientAddress = clientAddress
            self.newDevice = newDevice
        }
    }

    func cap(_ channel: ConfirmableChannel) -> Int {
        channel == .sms ? sms.hourlyCap : hourlyCap
    }

    /// Throws ``PushError/confirmationMailLimit(retryAfterSeconds:)`` when the recipient had its
    /// share, ``PushError/confirmationNetworkLimit(retryAfterSeconds:)`` when the client network
    /// had its share of texts or new SMS devices (`cause`, texts only),
    /// ``PushError/confirmationsPaused(retryAfterSeconds:)`` when the gateway had its cap.
    public func admit(_ channel: ConfirmableChannel, address: String, cause: Cause? = nil, now: Date, in db: any StoreTransaction) throws {
        let recipient = RecipientQuota.key(address, channel: channel, secret: secret)
        let sends = try store.sends(channel: channel, recipient: recipient, since: now.addingTimeInterval(-RecipientQuota.window), in: db)
        if case .recipientLimit(let seconds) = RecipientQuota.decide(recipientSends: sends, hourlySends: 0, oldestHourlySend: nil, hourlyCap: .max, now: now) {
            throw PushError.confirmationMailLimit(retryAfterSeconds: seconds)
        }
        if channel == .sms, let cause {
            let network = SMSQuota.networkKey(clientAddress: cause.clientAddress, secret: secret)
            let recent = try store.networkSends(channel: channel, network: network, since: now.addingTimeInterval(-RecipientQuota.window), in: db)
            switch sms.decide(networkSends: recent, newDevice: cause.newDevice, now: now) {
            case .allowed:
                break
            case .networkTexts(let seconds):
                networkLimited("texts", share: sms.perNetworkHourly, seconds: seconds, network: network)
                throw PushError.confirmationNetworkLimit(retryAfterSeconds: seconds)
            case .networkDevices(let seconds):
                networkLimited("devices", share: sms.newDevicesPerNetwork, seconds: seconds, network: network)
                throw PushError.confirmationNetworkLimit(retryAfterSeconds: seconds)
            }
        }
        let hourly = try store.sendCount(channel: channel, since: now.addingTimeInterval(-RecipientQuota.hourlyWindow), in: db)
        switch RecipientQuota.decide(recipientSends: sends, hourlySends: hourly.count, oldestHourlySend: hourly.oldest, hourlyCap: cap(channel), now: now) {
        case .allowed:
            return
        case .recipientLimit(let seconds):
            throw PushError.confirmationMailLimit(retryAfterSeconds: seconds)
        case .hourlyCap(let seconds):
            Counter(label: "push_confirmation_cap_reached_total", dimensions: [("channel", channel.rawValue)]).increment()
            logger.warning("confirmation cap reached: no more confirmations go out until the hour frees one", metadata: [
                "channel": "\(channel.rawValue)", "cap": "\(cap(channel))", "retry_after_s": "\(seconds)",
            ])
            throw PushError.confirmationsPaused(retryAfterSeconds: seconds)
        }
    }

    private func networkLimited(_ limit: String, share: Int, seconds: Int, network: Data) {
        Counter(label: "push_sms_network_limit_total", dimensions: [("limit", limit)]).increment()
        logger.notice("a client network reached its share of confirmation texts", metadata: [
            "limit": "\(limit)", "share": "\(share)", "retry_after_s": "\(seconds)",
            "network_hash": "\(network.prefix(4).map { String(format: "%02x", $0) }.joined())",
        ])
    }

    /// Counts a confirmation about to be queued to `address` (and, for a text, to the client
    /// network that caused it).
    public func record(_ channel: ConfirmableChannel, address: String, cause: Cause? = nil, now: Date, in db: any StoreTransaction) throws {
        let network = channel == .sms ? cause.map { SMSQuota.networkKey(clientAddress: $0.clientAddress, secret: secret) } : nil
        try store.recordSend(
            channel: channel, recipient: RecipientQuota.key(address, channel: channel, secret: secret), network: network,
            newDevice: cause?.newDevice ?? false, at: now, in: db
        )
    }
}
