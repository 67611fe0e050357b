public import Foundation

/// A notification ready to send to one device, whatever the channel.
public struct OutgoingNotification: Sendable, Equatable, Codable {
    /// Stable across retries: APNs `apns-id`, the webhook's `webhook-id`, Web Push dedup.
    public var id: String
    /// `grade.new`, `grade.changed`, `seat.open`, `waitlist.offer`, `class.cancelled`, `test`.
    public var category: String
    public var title: String
    public var body: String
    /// Extra key/values for the app (class id, source id, ...). Never secrets.
    public var data: [String: String]
    /// Urgent notifications interrupt (APNs priority 10, Web Push `Urgency: high`); others may wait.
    public var urgent: Bool
    /// Notifications with the same collapse id replace each other on the device.
    public var collapseID: String?
    /// After this, the notification is worthless (APNs `apns-expiration`, Web Push `TTL`).
    public var expiresAt: Date?

    public init(
        id: String, category: String, title: String, body: String, data: [String: String] = [:], urgent: Bool = false,
        collapseID: String? = nil, expiresAt: Date? = nil
    ) {
        self.id = id
        self.category = category
        self.title = title
        self.body = body
        self.data = data
        self.urgent = urgent
        self.collapseID = collapseID
        self.expiresAt = expiresAt
    }
}

/// Where one device receives notifications.
public enum DeviceAddress: Sendable, Equatable {
    /// An iOS device: its hex token, the APNs environment and the app's topic (bundle id).
    case apns(token: String, environment: APNsEnvironment, topic: String)
    /// A browser's Web Push subscription (RFC 8030): endpoint and its keys (base64url).
    case webPush(endpoint: URL, p256dh: String, auth: String)
    /// A server that wants JSON POSTs, signed with the device's secret.
    case webhook(url: URL, secret: Data)
    /// A mailbox (`local@domain`, checked by `MailAddress`); mailed only once confirmed.
    case email(address: String)
    /// A mobile number in E.164 form (``PhoneNumber``); texted only once confirmed and while
    /// the number has not replied STOP.
    case sms(phone: String)
    /// Recorded in the outbox only (demo and development).
    case log
}

public enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    case sandbox, production
}

/// What became of one delivery attempt.
public enum DeliveryOutcome: Sendable, Equatable {
    /// Accepted by the channel (its HTTP status).
    case delivered(status: Int)
    /// Try again later (429, 5xx, a connection failure); `after` from `Retry-After` when given.
    case retry(after: Duration?, reason: String)
    /// Never deliverable as it is (a 4xx other than the above); the reason is kept.
    case discarded(reason: String)
    /// The device address is dead: deactivate it (APNs BadDeviceToken, Web Push 404/410).
    case deactivate(reason: String)
    /// APNs 410 Unregistered: deactivate unless the device registered again after `since`.
    case unregistered(since: Date, reason: String)
}

/// Sends notifications over one channel. Implementations never log payloads or secrets.
public protocol NotificationChannel: Sendable {
    func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome
    /// What ``PushService`` calls: channels that need more than the address (email: the
    /// device's id for its unsubscribe link, whether it is confirmed) implement this one.
    func deliver(_ notification: OutgoingNotification, to device: Device) async -> DeliveryOutcome
}

extension NotificationChannel {
    public func deliver(_ notification: OutgoingNotification, to device: Device) async -> DeliveryOutcome {
        await deliver(notification, to: device.address)
    }
}
