public import Contracts
public import Crypto
public import Foundation
public import GatewayCore
public import Jobs
public import Logging
public import Storage

/// The rules around SMS devices that need the database: who may add a number (only in the
/// countries the gateway texts, ``SMSCountries``), the confirmation texts' limits (per student
/// as email's, at most ``RecipientQuota/perRecipient`` per number in 24 hours whoever asks, and
/// the texts' own quota shared out per client network, ``SMSQuota``), the numbers that texted
/// STOP, and the carrier's inbound messages (each applied once, by `MessageSid`). Confirming by code goes through
/// ``EmailDevices/confirm(deviceID:accountID:code:)``, which takes both channels. No number,
/// code or token ever reaches a job's arguments: the confirmation job carries the device id.
public struct SMSDevices: Sendable {
    /// Texts one confirmation code to a device (a fresh code each run).
    public static let confirmationText = JobKind<ConfirmationText>("push.sms-confirmation", queue: PushJobs.queue)

    public struct ConfirmationText: Codable, Sendable, Equatable {
        public var deviceId: Int64
        public init(deviceId: Int64) { self.deviceId = deviceId }
    }

    /// Where the provider posts inbound texts and how they are checked: the auth token and the
    /// full URL the signature covers (`GATEWAY_PUBLIC_URL` + `/v1/sms/inbound`). Nil when no
    /// provider is configured: every inbound post is then refused.
    public struct Inbound: Sendable, CustomStringConvertible {
        public var url: String
        public var accountSID: String
        public var authToken: String

        public init(url: String, accountSID: String, authToken: String) {
            self.url = url
            self.accountSID = accountSID
            self.authToken = authToken
        }

        public var description: String { "SMSInbound(\(url), account \(accountSID), token set)" }
    }

    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let emails: any EmailStoring
    let mutes: any SMSMuteStoring
    let jobs: any JobEnqueuing
    let clock: any GatewayClock
    let recipients: ConfirmationRecipients
    let recipientSecret: SymmetricKey
    let inbound: Inbound?
    /// The countries texted (`GATEWAY_SMS_COUNTRIES`).
    public let countries: SMSCountries
    let logger: Logger

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, emails: any EmailStoring, mutes: any SMSMuteStoring, jobs: any JobEnqueuing,
        clock: any GatewayClock, recipients: ConfirmationRecipients, recipientSecret: SymmetricKey, inbound: Inbound?,
        countries: SMSCountries = .default, logger: Logger = Logger(label: "campus-gateway.push")
    ) {
        self.countries = countries
        self.transactions = transactions
        self.devices = devices
        self.emails = emails
        self.mutes = mutes
        self.jobs = jobs
        self.clock = clock
        self.recipients = recipients
        self.recipientSecret = recipientSecret
        self.inbound = inbound
        var logger = logger
        logger[metadataKey: "channel"] = "sms"
        self.logger = logger
    }

    /// The number's key in the mute and quota tables (a keyed hash, never the number).
    func recipient(_ phone: String) -> Data {
        RecipientQuota.key(phone, channel: .sms, secret: recipientSecret)
    }

    /// Why a number outside ``countries`` is refused (the 422's message on `phone`, and the
    /// reason kept on a device registered before the list changed).
    func countryRefusal(_ phone: PhoneNumber) -> String {
        let code = SMSCountries.callingCode(of: phone.value).map { "+" + $0 } ?? "an unknown calling code"
        return "is in a country this gateway does not text (\(code)); it texts numbers with the calling codes \(countries)"
    }

    /// The number in E.164 form, in one of the countries texted; otherwise 422 on `phone`.
    func checkedNumber(_ raw: String) throws -> PhoneNumber {
        let phone: PhoneNumber
        do {
            phone = try PhoneNumber(validating: raw)
        } catch {
            throw PushError.invalid(field: error.field, message: "\(error.field) \(error.reason).")
        }
        guard countries.allows(phone) else { throw PushError.invalid(field: "phone", message: "phone \(countryRefusal(phone)).") }
        return phone
    }

    /// Inside the registration's transaction, before the insert: the number is new for the
    /// account, the account has room for one more unconfirmed number and may cause a text, the
    /// number itself may be texted (``RecipientQuota``), and the client network may add a
    /// device and cause a text (``SMSQuota``).
    func admit(accountID: Int64, phone: String, existing: [Device], clientAddress: String?, now: Date, in db: any StoreTransaction) throws {
        let phones = existing.filter { $0.channel == .sms }
        guard !phones.contains(where: { $0.address == .sms(phone: phone) }) else { throw PushError.phoneAlreadyRegistered }
        guard phones.filter({ $0.confirmedAt == nil }).count < EmailConfirmation.maximumUnconfirmed else {
            throw PushError.unconfirmedPhoneLimit(EmailConfirmation.maximumUnconfirmed)
        }
        try checkQuota(accountID: accountID, deviceID: nil, now: now, in: db)
        try recipients.admit(.sms, address: phone, cause: .init(clientAddress: clientAddress, newDevice: true), now: now, in: db)
    }

    /// Counts a confirmation text to `phone` (for the account, the number and the client
    /// network that caused it) and queues its job, in the caller's transaction.
    func queueText(
        accountID: Int64, deviceID: Int64, phone: String, cause: ConfirmationRecipients.Cause, now: Date, in db: any StoreTransaction
    ) throws {
        try emails.recordMail(accountID: accountID, deviceID: deviceID, at: now, in: db)
        try recipients.record(.sms, address: phone, cause: cause, now: now, in: db)
        try jobs.enqueue(try NewJob(Self.confirmationText, ConfirmationText(deviceId: deviceID), maxAttempts: 8), in: db, now: now)
    }

    /// The per-device and per-student limits on confirmation messages (shared with email).
    private func checkQuota(accountID: Int64, deviceID: Int64?, now: Date, in db: any StoreTransaction) throws {
        let sent = try emails.mails(accountID: accountID, since: now.addingTimeInterval(-EmailConfirmation.mailWindow), in: db)
        let quota = EmailConfirmation.mailAllowed(deviceMails: sent.filter { $0.deviceID == deviceID }.map(\.at), accountMails: sent.map(\.at), now: now)
        if case .retryAfter(let seconds) = quota { throw PushError.confirmationMailLimit(retryAfterSeconds: seconds) }
    }

    /// Texts a new code (earlier ones stop working), in the caller's transaction.
    func resend(_ device: Device, accountID: Int64, clientAddress: String?, now: Date, in db: any StoreTransaction) throws {
        guard device.channel == .sms, device.confirmedAt == nil, case .sms(let phone) = device.address else { throw PushError.nothingToConfirm }
        // A number registered before the countries texted changed is not texted either.
        _ = try checkedNumber(phone)
        let cause = ConfirmationRecipients.Cause(clientAddress: clientAddress, newDevice: false)
        try checkQuota(accountID: accountID, deviceID: device.id, now: now, in: db)
        try recipients.admit(.sms, address: phone, cause: cause, now: now, in: db)
        try queueText(accountID: accountID, deviceID: device.id, phone: phone, cause: cause, now: now, in: db)
    }

    /// Whether the number texted STOP (and not START since).
    public func isMuted(_ phone: String) async throws -> Bool {
        let key = recipient(phone)
        return try await transactions.read { [mutes] db in try mutes.isMuted(recipient: key, in: db) }
    }

    func isMuted(_ phone: String, in db: any StoreTransaction) throws -> Bool {
        try mutes.isMuted(recipient: recipient(phone), in: db)
    }

    /// Records that the number opted out (the provider said so, or it texted STOP).
    public func mute(_ phone: String) async throws {
        let key = recipient(phone), now = clock.now()
        try await transactions.write { [mutes] db in try mutes.mute(recipient: key, at: now, in: db) }
    }

    /// What became of an inbound post.
    public enum InboundResult: Sendable, Equatable {
        case muted, unmuted, ignored
        /// A `MessageSid` already applied (a replay, or the provider posting it again): nothing changed.
        case duplicate
        /// A START received no later than the number's last applied STOP: the STOP stands.
        case stale
    }

    /// An inbound message as the provider posted it (form fields in order) with its
    /// `X-Twilio-Signature`: refused (``PushError/smsInboundRefused``) unless the signature is
    /// the one the configured auth token makes over the public URL and the fields, and the
    /// post names the configured account. Then `STOP` (and synonyms) mutes the sender's number
    /// on every account, `START` unmutes it, anything else changes nothing.
    ///
    /// Twilio's signature has no timestamp, so a captured post verifies forever: each message
    /// is applied once, by its `MessageSid`, kept ``inboundDedupeWindow`` (a repeat is
    /// ``InboundResult/duplicate`` and changes nothing; a signed post without one changes
    /// nothing either). MessageSids are not ordered, so the order of a number's STOPs and STARTs
    /// is the time the gateway received each: the last applied one is kept per number, and a
    /// START received no later than the number's last STOP is ``InboundResult/stale``. A STOP
    /// always applies (an opt-out is never refused) and keeps the latest order, so it is final
    /// against any START before it. The record, the check and the change are one transaction.
    public func receive(fields: [(name: String, value: String)], signature: String?) async throws -> InboundResult {
        guard let inbound, TwilioSignature.verify(signature, url: inbound.url, parameters: fields, authToken: inbound.authToken) else {
            logger.notice("inbound text refused: no valid signature", metadata: ["configured": "\(inbound != nil)", "signature": "\(signature == nil ? "missing" : "wrong")"])
            throw PushError.smsInboundRefused
        }
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        if let account = field("AccountSid"), !constantTimeEquals(Array(account.utf8), Array(inbound.accountSID.utf8)) {
            logger.notice("inbound text refused: another account's")
            throw PushError.smsInboundRefused
        }
        guard let from = field("From"), let phone = try? PhoneNumber(validating: from) else { return .ignored }
        let keyword = SMSKeyword(body: field("Body") ?? "")
        guard keyword != .other else { return .ignored }
        guard let sid = field("MessageSid") ?? field("SmsSid"), !sid.isEmpty, sid.utf8.count <= 64 else {
            logger.notice("inbound text ignored: no MessageSid to apply it once by", metadata: ["from": "\(phone.masked)"])
            return .ignored
        }
        let now = clock.now(), key = recipient(phone.value)
        let result = try await transactions.write { [mutes] db -> InboundResult in
            guard try mutes.recordInbound(messageSID: sid, at: now, in: db) else { return .duplicate }
            let last = try mutes.lastKeyword(recipient: key, in: db)
            switch keyword {
            case .stop:
                try mutes.mute(recipient: key, at: now, in: db)
                try mutes.setLastKeyword(recipient: key, keyword: .stop, messageSID: sid, at: max(now, last?.at ?? now), in: db)
                return .muted
            case .start:
                // Stored times keep milliseconds (SQLite): within one is the same instant.
                if let last, last.keyword == .stop, now.timeIntervalSince(last.at) < 0.001 { return .stale }
                try mutes.unmute(recipient: key, in: db)
                try mutes.setLastKeyword(recipient: key, keyword: .start, messageSID: sid, at: max(now, last?.at ?? now), in: db)
                return .unmuted
            case .other:
                return .ignored
            }
        }
        switch result {
        case .muted: logger.info("number opted out (STOP)", metadata: ["from": "\(phone.masked)"])
        case .unmuted: logger.info("number opted in (START)", metadata: ["from": "\(phone.masked)"])
        case .duplicate: logger.notice("inbound text already applied (a repeat or a replay): nothing changed", metadata: ["from": "\(phone.masked)"])
        case .stale: logger.notice("inbound START older than the number's STOP: the STOP stands", metadata: ["from": "\(phone.masked)"])
        case .ignored: break
        }
        return result
    }

    /// How long an inbound message's `MessageSid` is kept to apply it once: 35 days (at least
    /// the 30 a replay must be refused for, and a margin); ``PushRetention`` forgets older ones.
    public static let inboundDedupeWindow: TimeInterval = 35 * 24 * 3600
}
