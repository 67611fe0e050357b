public import Foundation
public import GatewayCore

/// Delivers notifications to confirmed SMS devices: a short text (``SMSText``: at most two
/// segments, GSM-safe; about a class, its course and section and a link to the class in the web
/// app, `GATEWAY_PUBLIC_URL`), sent by an ``SMSSender`` (Twilio, or the log in a demo). An
/// unconfirmed device is never texted here (it is inactive, and this checks again), nor a
/// number that texted STOP, on any account, nor one outside the countries texted
/// (`GATEWAY_SMS_COUNTRIES`, for a number registered before the list changed). Texts carry no token of any kind.
public struct SMSChannel: NotificationChannel {
    let sender: any SMSSender
    let sms: SMSDevices
    /// Where the web app is (`GATEWAY_PUBLIC_URL`), without a trailing slash.
    let publicURL: String
    let clock: any GatewayClock

    public init(sender: any SMSSender, sms: SMSDevices, publicURL: URL, clock: any GatewayClock) {
        self.sender = sender
        self.sms = sms
        var base = publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.publicURL = base
        self.clock = clock
    }

    public func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome {
        .discarded(reason: "a text needs its device")
    }

    public func deliver(_ notification: OutgoingNotification, to device: Device) async -> DeliveryOutcome {
        guard case .sms(let raw) = device.address, let phone = try? PhoneNumber(validating: raw) else {
            return .discarded(reason: "not a phone number")
        }
        guard device.confirmedAt != nil else { return .discarded(reason: "the number is not confirmed") }
        guard sms.countries.allows(phone) else { return .discarded(reason: "the number \(sms.countryRefusal(phone))") }
        if let expiresAt = notification.expiresAt, expiresAt < clock.now() { return .discarded(reason: "expired before it was sent") }
        do {
            if try await sms.isMuted(phone.value) { return .discarded(reason: SMSConfirmationTexter.mutedReason) }
        } catch {
            return .retry(after: nil, reason: "could not read the number's opt-out")
        }
        let text = SMSText.notification(notification, publicURL: publicURL)
        let outcome = await sender.send(SMSMessage(to: phone, body: text), purpose: .notification(id: notification.id, category: notification.category))
        if case .deactivate(let reason) = outcome, reason == SMSOutcome.optedOutReason {
            // The provider says the number opted out: no account texts it until it says START.
            try? await sms.mute(phone.value)
        }
        return outcome
    }
}
