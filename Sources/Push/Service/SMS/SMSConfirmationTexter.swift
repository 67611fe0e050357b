import Foundation
public import GatewayCore
public import Jobs
public import Storage

/// Works ``SMSDevices/confirmationText``: makes a fresh six-digit code for a device still
/// waiting for confirmation, stores its hash (replacing any earlier one; the code is bound to
/// the device) and texts it, and nothing else secret: no link, no token. A number that texted
/// STOP, or one outside the countries texted (``SMSCountries``), is sent nothing (the device
/// records why). A retryable answer retries with the queue's
/// backoff (with a new code: the failed text never arrived); a refusal is recorded on the
/// device and given up.
public struct SMSConfirmationTexter: Sendable {
    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let store: any EmailStoring
    let sms: SMSDevices
    let sender: any SMSSender
    let clock: any GatewayClock

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, store: any EmailStoring, sms: SMSDevices, sender: any SMSSender,
        clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.devices = devices
        self.store = store
        self.sms = sms
        self.sender = sender
        self.clock = clock
    }

    public func register(in registry: JobRegistry) {
        registry.register(SMSDevices.confirmationText) { [self] args, _ in try await send(deviceID: args.deviceId) }
    }

    /// The reason kept on a device whose number texted STOP.
    public static let mutedReason = "this number replied STOP; text START to the gateway's number to get texts again"

    enum Loaded {
        case none, muted, outside(PhoneNumber), send(Device, PhoneNumber)
    }

    /// One attempt at the device's confirmation text.
    public func send(deviceID: Int64) async throws -> JobOutcome {
        let now = clock.now()
        let code = EmailConfirmation.newCode()
        let loaded = try await transactions.write { [devices, store, sms] db -> Loaded in
            guard let device = try devices.device(id: deviceID, in: db), device.channel == .sms, device.confirmedAt == nil,
                  case .sms(let raw) = device.address, let phone = try? PhoneNumber(validating: raw) else { return .none }
            // A number registered before the countries texted (GATEWAY_SMS_COUNTRIES) changed.
            guard sms.countries.allows(phone) else { return .outside(phone) }
            if try sms.isMuted(phone.value, in: db) { return .muted }
            // Only the code is ever sent; the link token the shared table wants is random and
            // never leaves this function, so no link can confirm an SMS device.
            try store.savePending(PendingEmailConfirmation(
                deviceID: deviceID, codeHash: EmailConfirmation.codeHash(code, deviceID: deviceID),
                tokenHash: EmailConfirmation.tokenHash(EmailConfirmation.newToken()),
                expiresAt: now.addingTimeInterval(EmailConfirmation.lifetime), failedAttempts: 0
            ), at: now, in: db)
            return .send(device, phone)
        }
        switch loaded {
        case .none:
            return .complete
        case .muted:
            try await recordFailure(deviceID, Self.mutedReason)
            return .complete
        case .outside(let phone):
            try await recordFailure(deviceID, "the number \(sms.countryRefusal(phone))")
            return .complete
        case .send(_, let phone):
            let outcome = await sender.send(SMSMessage(to: phone, body: SMSText.confirmation(code: code)), purpose: .confirmation(deviceID: deviceID, code: code))
            switch outcome {
            case .delivered:
                return .complete
            case .retry(let after, let reason):
                try await recordFailure(deviceID, "confirmation text: \(reason)")
                return .retry(after: after.map { Double($0.components.seconds) }, message: reason)
            case .deactivate(let reason):
                if reason == SMSOutcome.optedOutReason { try await sms.mute(phone.value) }
                try await recordFailure(deviceID, "confirmation text: \(reason)")
                return .complete
            case .discarded(let reason), .unregistered(_, let reason):
                try await recordFailure(deviceID, "confirmation text: \(reason)")
                return .complete
            }
        }
    }

    private func recordFailure(_ deviceID: Int64, _ reason: String) async throws {
        let now = clock.now()
        try await transactions.write { [devices] db in try devices.recordFailure(id: deviceID, error: reason, deactivate: false, at: now, in: db) }
    }
}
