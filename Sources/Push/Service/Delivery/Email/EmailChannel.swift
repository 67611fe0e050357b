import Foundation
public import GatewayCore
import HTTPClient

/// Delivers notifications to confirmed email devices: a plain-text mail (``EmailComposer``)
/// with a fresh one-click unsubscribe link per mail, sent by an ``EmailSender`` (SMTP, or the
/// log in a demo). An unconfirmed device is never mailed here (it is inactive, and this checks
/// again).
public struct EmailChannel: NotificationChannel {
    let sender: any EmailSender
    let composer: EmailComposer
    let emails: EmailDevices
    let clock: any GatewayClock

    public init(sender: any EmailSender, composer: EmailComposer, emails: EmailDevices, clock: any GatewayClock) {
        self.sender = sender
        self.composer = composer
        self.emails = emails
        self.clock = clock
    }

    public func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome {
        .discarded(reason: "an email needs its device")
    }

    public func deliver(_ notification: OutgoingNotification, to device: Device) async -> DeliveryOutcome {
        guard case .email(let raw) = device.address, let address = try? MailAddress(validating: raw) else {
            return .discarded(reason: "not an email address")
        }
        guard device.confirmedAt != nil else { return .discarded(reason: "the address is not confirmed") }
        let now = clock.now()
        if let expiresAt = notification.expiresAt, expiresAt < now { return .discarded(reason: "expired before it was sent") }
        let token: String
        do {
            token = try await emails.issueUnsubscribeToken(for: UnsubscribeTarget(deviceID: device.id, notification: notification))
        } catch {
            return .retry(after: nil, reason: "could not record the unsubscribe link")
        }
        let message = composer.notification(notification, to: address, unsubscribeToken: token, date: now)
        return await sender.send(message, purpose: .notification(id: notification.id, category: notification.category))
    }
}
