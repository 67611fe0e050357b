public import Logging

/// The `log` channel (demo and development): the outbox row is the record; this writes one
/// structured line (ids and category only, never the text) and reports it delivered.
public struct LogChannel: NotificationChannel {
    let logger: Logger

    public init(logger: Logger) {
        var logger = logger
        logger[metadataKey: "channel"] = "log"
        self.logger = logger
    }

    public func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome {
        logger.info("notify", metadata: ["notification": "\(notification.id)", "category": "\(notification.category)"])
        return .delivered(status: 200)
    }
}

/// The channels a deployment has configured; a device on a channel without one is discarded
/// with that reason.
public struct NotificationChannels: Sendable {
    public var apns: (any NotificationChannel)?
    public var webPush: (any NotificationChannel)?
    public var webhook: (any NotificationChannel)?
    /// Mail to confirmed addresses (SMTP, or the log mailer in a demo).
    public var email: (any NotificationChannel)?
    /// Texts to confirmed numbers (Twilio, or the log sender in a demo).
    public var sms: (any NotificationChannel)?
    public var log: any NotificationChannel

    public init(
        apns: (any NotificationChannel)? = nil, webPush: (any NotificationChannel)? = nil, webhook: (any NotificationChannel)? = nil,
        email: (any NotificationChannel)? = nil, sms: (any NotificationChannel)? = nil, log: any NotificationChannel
    ) {
        self.sms = sms
        self.apns = apns
        self.webPush = webPush
        self.webhook = webhook
        self.email = email
        self.log = log
    }

    func channel(for kind: Device.Channel) -> (any NotificationChannel)? {
        switch kind {
        case .apns: apns
        case .webpush: webPush
        case .webhook: webhook
        case .email: email
        case .sms: sms
        case .log: log
        }
    }
}
