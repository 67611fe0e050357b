import Foundation
public import GatewayCore
import HTTPClient
public import Jobs
public import Storage

/// Works ``EmailDevices/confirmationMail``: makes a fresh code and link token for a device
/// still waiting for confirmation, stores their hashes (replacing any earlier ones) and mails
/// them. A 4xx answer or a transport failure retries with the queue's backoff (with new
/// values: the failed mail never arrived); a 5xx is recorded on the device and given up.
public struct EmailConfirmationMailer: Sendable {
    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let store: any EmailStoring
    let sender: any EmailSender
    let composer: EmailComposer
    let clock: any GatewayClock

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, store: any EmailStoring, sender: any EmailSender,
        composer: EmailComposer, clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.store = store
        self.devices = devices
        self.sender = sender
        self.composer = composer
        self.clock = clock
    }

    public func register(in registry: JobRegistry) {
        registry.register(EmailDevices.confirmationMail) { [self] args, _ in try await send(deviceID: args.deviceId) }
    }

    /// One attempt at the device's confirmation mail.
    public func send(deviceID: Int64) async throws -> JobOutcome {
        let now = clock.now()
        let code = EmailConfirmation.newCode(), token = EmailConfirmation.newToken()
        let device = try await transactions.write { [devices, store] db -> Device? in
            guard let device = try devices.device(id: deviceID, in: db), device.channel == .email, device.confirmedAt == nil else { return nil }
            try store.savePending(PendingEmailConfirmation(
                deviceID: deviceID, codeHash: EmailConfirmation.codeHash(code, deviceID: deviceID), tokenHash: EmailConfirmation.tokenHash(token),
                expiresAt: now.addingTimeInterval(EmailConfirmation.lifetime), failedAttempts: 0
            ), at: now, in: db)
            return device
        }
        // Removed or confirmed meanwhile: nothing to send.
        guard let device, case .email(let raw) = device.address, let address = try? MailAddress(validating: raw) else { return .complete }
        let message = composer.confirmation(to: address, code: code, token: token, date: now)
        let outcome = await sender.send(message, purpose: .confirmation(deviceID: deviceID, code: code, link: composer.confirmationLink(token: token)))
        switch outcome {
        case .delivered:
            return .complete
        case .retry(_, let reason):
            try await recordFailure(deviceID, "confirmation mail: \(reason)")
            return .retry(after: nil, message: reason)
        case .discarded(let reason), .deactivate(let reason), .unregistered(_, let reason):
            try await recordFailure(deviceID, "confirmation mail: \(reason)")
            return .complete
        }
    }

    private func recordFailure(_ deviceID: Int64, _ reason: String) async throws {
        let now = clock.now()
        try await transactions.write { [devices] db in try devices.recordFailure(id: deviceID, error: reason, deactivate: false, at: now, in: db) }
    }
}
