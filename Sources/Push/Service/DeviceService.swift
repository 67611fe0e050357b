import Crypto
public import Foundation
public import GatewayCore
public import HTTPClient
public import Jobs
public import Storage

/// Students' devices at `/v1/me/devices`: register one per app install, browser, webhook or
/// email address, list, remove. Another student's device is simply not found. An email device
/// starts unconfirmed (inactive) and its confirmation mail is queued in the same transaction
/// (``EmailDevices``).
public final class DeviceService: Sendable {
    let transactions: any TransactionRunner
    let store: any DeviceStoring
    let clock: any GatewayClock
    /// Lets http and private hosts for webhooks and Web Push endpoints (tests and the demo).
    let allowInsecureEndpoints: Bool
    /// Private networks and hosts the operator allow-listed for webhooks and Web Push.
    let allowedDestinations: DestinationAllowList

    /// Confirmation, limits and unsubscribe of email devices.
    public let emails: EmailDevices
    /// Confirmation texts, limits and opt-outs of SMS devices.
    public let sms: SMSDevices

    public static let maximumPerAccount = 20

    public init(
        transactions: any TransactionRunner, store: any DeviceStoring, emails: EmailDevices, sms: SMSDevices,
        clock: any GatewayClock, allowInsecureEndpoints: Bool = false, allowedDestinations: DestinationAllowList = .none
    ) {
        self.allowedDestinations = allowedDestinations
        self.transactions = transactions
        self.store = store
        self.clock = clock
        self.allowInsecureEndpoints = allowInsecureEndpoints
        var emails = emails
        emails.sms = sms
        self.emails = emails
        self.sms = sms
    }

    /// What a client asks to register.
    public struct Registration: Sendable {
        public var channel: String
        public var name: String?
        public var token: String?
        public var environment: String?
        public var topic: String?
        public var endpoint: String?
        public var p256dh: String?
        public var auth: String?
        public var url: String?
        public var email: String?
        public var phone: String?

        public init(channel: String, name: String? = nil, token: String? = nil, environment: String? = nil, topic: String? = nil,
                    endpoint: String? = nil, p256dh: String? = nil, auth: String? = nil, url: String? = nil, email: String? = nil,
                    phone: String? = nil) {
            self.phone = phone
            self.email = email
            self.channel = channel
            self.name = name
            self.token = token
            self.environment = environment
            self.topic = topic
            self.endpoint = endpoint
            self.p256dh = p256dh
            self.auth = auth
            self.url = url
        }

        /// The longest each field may be, whatever the channel (the contract's `maxLength`s).
        /// (A name is checked again once trimmed, at 100.) Lengths count Unicode scalars, as
        /// JSON Schema does.
        var fieldsWithLimits: [(field: String, value: String?, limit: Int)] {
            [
                ("name", name, 400), ("token", token, 200), ("environment", environment, 20), ("topic", topic, 200),
                ("endpoint", endpoint, 2048), ("p256dh", p256dh, 200), ("auth", auth, 200), ("url", url, 2048),
                ("email", email, 254), ("phone", phone, 16),
            ]
        }

        /// The first field past its limit answers 422 naming it, before any channel rule.
        func checkLengths() throws {
            for (field, value, limit) in fieldsWithLimits {
                if let value, value.unicodeScalars.count > limit {
                    throw PushError.invalid(field: field, message: "\(field) is at most \(limit) characters.")
                }
            }
        }
    }

    /// Registers a device; a webhook's signing secret comes back once (`whsec_...`).
    /// Every field keeps its length limit, even one the channel ignores. `clientAddress` is the
    /// request's (an SMS device counts against its network's share, ``SMSQuota``).
    public func register(accountID: Int64, _ registration: Registration, clientAddress: String? = nil) async throws -> (Device, webhookSecret: String?) {
        try registration.checkLengths()
        let (address, secret) = try address(for: registration)
        let name = (registration.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= 100 else { throw PushError.invalid(field: "name", message: "A name is at most 100 characters.") }
        let now = clock.now()
        let device = try await transactions.write { [store, emails, sms] db in
            let existing = try store.devices(ofAccount: accountID, in: db)
            guard existing.count < Self.maximumPerAccount else { throw PushError.deviceLimit(Self.maximumPerAccount) }
            if case .sms(let phone) = address {
                // Unconfirmed: inactive, texted nothing but its code until confirmed.
                try sms.admit(accountID: accountID, phone: phone, existing: existing, clientAddress: clientAddress, now: now, in: db)
                let device = try store.insert(NewDevice(accountID: accountID, name: name, address: address, active: false), at: now, in: db)
                try sms.queueText(
                    accountID: accountID, deviceID: device.id, phone: phone, cause: .init(clientAddress: clientAddress, newDevice: true), now: now, in: db
                )
                return device
            }
            guard case .email(let email) = address else {
                return try store.insert(NewDevice(accountID: accountID, name: name, address: address), at: now, in: db)
            }
            // Unconfirmed: inactive, mailed nothing but its confirmation until confirmed.
            try emails.admit(accountID: accountID, address: email, existing: existing, now: now, in: db)
            let device = try store.insert(NewDevice(accountID: accountID, name: name, address: address, active: false), at: now, in: db)
            try emails.queueMail(accountID: accountID, deviceID: device.id, address: email, now: now, in: db)
            return device
        }
        return (device, secret.map { WebhookSecret(bytes: $0).displayValue })
    }

    public func devices(accountID: Int64) async throws -> [Device] {
        try await transactions.read { [store] db in try store.devices(ofAccount: accountID, in: db) }
    }

    public func device(id: Int64, accountID: Int64) async throws -> Device {
        let found = try await transactions.read { [store] db in try store.device(id: id, in: db) }
        guard let found, found.accountID == accountID else { throw PushError.deviceNotFound }
        return found
    }

    public func delete(id: Int64, accountID: Int64) async throws {
        _ = try await device(id: id, accountID: accountID)
        _ = try await transactions.write { [store] db in try store.delete(id: id, in: db) }
    }

    func address(for registration: Registration) throws -> (DeviceAddress, Data?) {
        do {
            switch Device.Channel(rawValue: registration.channel) {
            case .apns?:
                let token = try DeviceRules.apnsToken(registration.token ?? "")
                let topic = try DeviceRules.apnsTopic(registration.topic ?? "")
                guard let environment = APNsEnvironment(rawValue: registration.environment ?? "production") else {
                    throw DeviceProblem(field: "environment", reason: "must be sandbox or production")
                }
                return (.apns(token: token, environment: environment, topic: topic), nil)
            case .webpush?:
                let endpoint = try DeviceRules.outboundURL(
                    registration.endpoint ?? "", field: "endpoint", allowInsecure: allowInsecureEndpoints, allowed: allowedDestinations
                )
                do {
                    let keys = try WebPushSubscription.validateKeys(p256dh: registration.p256dh ?? "", auth: registration.auth ?? "")
                    return (.webPush(endpoint: endpoint, p256dh: keys.p256dh, auth: keys.auth), nil)
                } catch {
                    throw DeviceProblem(field: error.field ?? "p256dh", reason: "is not usable: \(error.message)")
                }
            case .webhook?:
                let url = try DeviceRules.outboundURL(
                    registration.url ?? "", field: "url", allowInsecure: allowInsecureEndpoints, allowed: allowedDestinations
                )
                let secret = WebhookSecret.generate()
                return (.webhook(url: url, secret: secret.bytes), secret.bytes)
            case .email?:
                do {
                    return (.email(address: try MailAddress(validating: registration.email ?? "").value), nil)
                } catch {
                    throw DeviceProblem(field: "email", reason: error.reason)
                }
            case .sms?:
                let phone = try PhoneNumber(validating: registration.phone ?? "")
                guard sms.countries.allows(phone) else { throw DeviceProblem(field: "phone", reason: sms.countryRefusal(phone)) }
                return (.sms(phone: phone.value), nil)
            case .log?:
                return (.log, nil)
            case nil:
                throw DeviceProblem(field: "channel", reason: "must be apns, webpush, webhook, email, sms or log")
            }
        } catch let problem as DeviceProblem {
            throw PushError.invalid(field: problem.field, message: "\(problem.field) \(problem.reason).")
        }
    }
}
