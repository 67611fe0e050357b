public import Contracts
public import Foundation
public import GatewayCore
public import Jobs
public import Storage

/// The rules around email devices that need the database: who may add an address, the
/// confirmation mails' limits, confirming by code (the owner) or by link (anyone holding the
/// mailed token), and one-click unsubscribe. Mails go out through the
/// ``EmailConfirmationMailer``'s job, queued in the same transaction as the change that asks
/// for them; no code or token ever reaches a job's arguments.
public struct EmailDevices: Sendable {
    /// Sends one confirmation mail for a device (a fresh code and link each run).
    public static let confirmationMail = JobKind<ConfirmationMail>("push.email-confirmation", queue: PushJobs.queue)

    public struct ConfirmationMail: Codable, Sendable, Equatable {
        public var deviceId: Int64
        public init(deviceId: Int64) { self.deviceId = deviceId }
    }

    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let store: any EmailStoring
    /// Seat alerts an unsubscribe link may stop.
    let seatAlerts: any SeatAlertStoring
    let jobs: any JobEnqueuing
    let clock: any GatewayClock
    /// The per-recipient quota and the gateway's hourly cap, across every account.
    let recipients: ConfirmationRecipients
    /// SMS devices confirm through the same code route; their resends go there.
    var sms: SMSDevices?

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, store: any EmailStoring, seatAlerts: any SeatAlertStoring,
        jobs: any JobEnqueuing, clock: any GatewayClock, recipients: ConfirmationRecipients
    ) {
        self.recipients = recipients
        self.transactions = transactions
        self.store = store
        self.seatAlerts = seatAlerts
        self.devices = devices
        self.jobs = jobs
        self.clock = clock
    }

    /// Inside the registration's transaction, before the insert: the address is new for the
    /// account, the account has room for one more unconfirmed address and may get a mail, and
    /// the address itself may be mailed (``RecipientQuota``).
    func admit(accountID: Int64, address: String, existing: [Device], now: Date, in db: any StoreTransaction) throws {
        let emails = existing.filter { $0.channel == .email }
        guard !emails.contains(where: { $0.address == .email(address: address) }) else { throw PushError.emailAlreadyRegistered }
        guard emails.filter({ $0.confirmedAt == nil }).count < EmailConfirmation.maximumUnconfirmed else {
            throw PushError.unconfirmedEmailLimit(EmailConfirmation.maximumUnconfirmed)
        }
        try checkQuota(accountID: accountID, deviceID: nil, now: now, in: db)
        try recipients.admit(.email, address: address, now: now, in: db)
    }

    /// Logs a confirmation mail to `address` and queues its job, in the caller's transaction.
    func queueMail(accountID: Int64, deviceID: Int64, address: String, now: Date, in db: any StoreTransaction) throws {
        try store.recordMail(accountID: accountID, deviceID: deviceID, at: now, in: db)
        try recipients.record(.email, address: address, now: now, in: db)
        try jobs.enqueue(try NewJob(Self.confirmationMail, ConfirmationMail(deviceId: deviceID), maxAttempts: 8), in: db, now: now)
    }

    private func checkQuota(accountID: Int64, deviceID: Int64?, now: Date, in db: any StoreTransaction) throws {
        let mails = try store.mails(accountID: accountID, since: now.addingTimeInterval(-EmailConfirmation.mailWindow), in: db)
        let quota = EmailConfirmation.mailAllowed(
            deviceMails: mails.filter { $0.deviceID == deviceID }.map(\.at), accountMails: mails.map(\.at), now: now
        )
        if case .retryAfter(let seconds) = quota { throw PushError.confirmationMailLimit(retryAfterSeconds: seconds) }
    }

    /// Sends the confirmation mail again (a fresh code and link; earlier ones stop working).
    /// `clientAddress` is the request's (a text counts against its network's share).
    public func resend(deviceID: Int64, accountID: Int64, clientAddress: String? = nil) async throws {
        let now = clock.now()
        try await transactions.write { [self] db in
            guard let device = try devices.device(id: deviceID, in: db), device.accountID == accountID else { throw PushError.deviceNotFound }
            if device.channel == .sms, let sms {
                return try sms.resend(device, accountID: accountID, clientAddress: clientAddress, now: now, in: db)
            }
            guard device.channel == .email, device.confirmedAt == nil, case .email(let address) = device.address else {
                throw PushError.nothingToConfirm
            }
            try checkQuota(accountID: accountID, deviceID: deviceID, now: now, in: db)
            try recipients.admit(.email, address: address, now: now, in: db)
            try queueMail(accountID: accountID, deviceID: deviceID, address: address, now: now, in: db)
        }
    }

    enum Attempt: Sendable {
        case confirmed(Device), wrong(attemptsLeft: Int), expired
    }

    /// The owner confirms with the mailed (or, for an SMS device, texted) code. Another
    /// student's device is not found; a confirmed one answers as it is.
    public func confirm(deviceID: Int64, accountID: Int64, code: String) async throws -> Device {
        let now = clock.now()
        let attempt = try await transactions.write { [self] db -> Attempt in
            guard let device = try devices.device(id: deviceID, in: db), device.accountID == accountID else { throw PushError.deviceNotFound }
            guard device.channel == .email || device.channel == .sms else { throw PushError.nothingToConfirm }
            if device.confirmedAt != nil { return .confirmed(device) }
            guard let pending = try store.pending(deviceID: deviceID, in: db), pending.expiresAt > now,
                  pending.failedAttempts < EmailConfirmation.maximumAttempts else { return .expired }
            let candidate = EmailConfirmation.codeHash(code.trimmingCharacters(in: .whitespaces), deviceID: deviceID)
            guard constantTimeEquals(candidate, pending.codeHash) else {
                let left = EmailConfirmation.maximumAttempts - pending.failedAttempts - 1
                if left > 0 {
                    try store.recordWrongCode(deviceID: deviceID, in: db)
                } else {
                    try store.deletePending(deviceID: deviceID, in: db)
                }
                return .wrong(attemptsLeft: left)
            }
            return .confirmed(try confirm(device, now: now, in: db))
        }
        switch attempt {
        case .confirmed(let device): return device
        case .wrong(let left): throw PushError.confirmationCodeWrong(attemptsLeft: left)
        case .expired: throw PushError.confirmationExpired
        }
    }

    /// Anyone holding the mailed link confirms with its token.
    public func confirm(token: String) async throws -> Device {
        guard EmailConfirmation.isTokenShaped(token) else { throw PushError.emailLinkInvalid }
        let hash = EmailConfirmation.tokenHash(token)
        let now = clock.now()
        return try await transactions.write { [self] db in
            guard let pending = try store.pending(tokenHash: hash, in: db), constantTimeEquals(pending.tokenHash, hash), pending.expiresAt > now,
                  pending.failedAttempts < EmailConfirmation.maximumAttempts,
                  let device = try devices.device(id: pending.deviceID, in: db), device.channel == .email else { throw PushError.emailLinkInvalid }
            return try confirm(device, now: now, in: db)
        }
    }

    private func confirm(_ device: Device, now: Date, in db: any StoreTransaction) throws -> Device {
        try devices.confirmEmail(id: device.id, at: now, in: db)
        try store.deletePending(deviceID: device.id, in: db)
        var confirmed = device
        confirmed.confirmedAt = now
        confirmed.active = true
        return confirmed
    }

    /// One-click unsubscribe (RFC 8058): mutes the link's category for its device and records
    /// that the link was used (with its seat alert id). Using a link again changes nothing.
    public func unsubscribe(token: String) async throws -> UnsubscribeTarget {
        guard EmailConfirmation.isTokenShaped(token) else { throw PushError.emailLinkInvalid }
        let hash = EmailConfirmation.tokenHash(token)
        let now = clock.now()
        return try await transactions.write { [self] db in
            guard let link = try store.unsubscribe(tokenHash: hash, in: db),
                  link.createdAt > now.addingTimeInterval(-UnsubscribeTarget.linkLifetime) else { throw PushError.emailLinkInvalid }
            // A seat alert's mail stops that alert (the student asked for it; other alerts and
            // categories keep going); any other mail mutes its category on this address.
            if let alertID = link.target.seatAlertID, let owner = try devices.device(id: link.target.deviceID, in: db)?.accountID,
                try seatAlerts.disarm(id: alertID, of: owner, in: db)
            {
                // disarmed
            } else {
                try devices.mute(id: link.target.deviceID, category: link.target.mutedCategory, in: db)
            }
            try store.markUsed(tokenHash: hash, at: now, in: db)
            return link.target
        }
    }

    /// A fresh unsubscribe link's token for a mail about to go; only its hash is kept.
    public func issueUnsubscribeToken(for target: UnsubscribeTarget) async throws -> String {
        let token = EmailConfirmation.newToken()
        let now = clock.now()
        try await transactions.write { [store] db in
            try store.insertUnsubscribe(tokenHash: EmailConfirmation.tokenHash(token), target: target, at: now, in: db)
        }
        return token
    }
}
