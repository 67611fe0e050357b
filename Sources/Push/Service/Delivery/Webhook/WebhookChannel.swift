import Foundation
public import GatewayCore
public import HTTPClient
public import Logging

/// Delivers to webhook devices: a JSON POST signed the Standard Webhooks way.
///
/// The body is `{"id", "type": <category>, "timestamp": <ISO 8601>, "data": {"title", "body",
/// <the notification's data>}}`; the headers `webhook-id` (the notification id, the same on
/// every retry, so receivers can deduplicate), `webhook-timestamp` (Unix seconds of this
/// attempt) and `webhook-signature` (``WebhookSignature``, with the device's secret).
///
/// Answers: 2xx delivered; 410 deactivates the device; 429 and 5xx retry after `Retry-After`;
/// other statuses (redirects are not followed) are discarded; connection failures retry, and
/// the job queue's backoff spaces the attempts. URLs come from users and are held to
/// ``PushEndpointPolicy`` and the client's connect-time address check, as for Web Push.
/// Neither the secret nor the body is ever logged; logs name the host only.
public struct WebhookChannel: NotificationChannel {
    /// How the channel sends.
    public struct Configuration: Sendable {
        /// Total time for one request.
        public var requestTimeout: Duration
        /// Allows `http` to loopback URLs (see ``PushEndpointPolicy``). Tests and demos only.
        public var allowInsecureLoopbackForTesting: Bool

        public init(requestTimeout: Duration = .seconds(15), allowInsecureLoopbackForTesting: Bool = false) {
            self.requestTimeout = requestTimeout
            self.allowInsecureLoopbackForTesting = allowInsecureLoopbackForTesting
        }
    }

    let configuration: Configuration
    let sender: UserEndpointSender

    /// - Parameter client: sends the requests; a `CurlHTTPClient` with no
    ///   `allowedDestinations` in production. Its allow list also relaxes the pre-check.
    public init(
        client: any HTTPClient, configuration: Configuration = Configuration(), clock: any GatewayClock = SystemClock(),
        logger: Logger = Logger(label: "campus-gateway.push")
    ) {
        self.configuration = configuration
        self.sender = UserEndpointSender(
            channel: "webhook", client: client, allowInsecureLoopbackForTesting: configuration.allowInsecureLoopbackForTesting,
            clock: clock, logger: logger
        )
    }

    public func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome {
        guard case .webhook(let url, let secret) = address else { return .discarded(reason: "not a webhook address") }
        let now = sender.clock.now()
        let outcome: DeliveryOutcome
        if let refusal = sender.policy.refusal(for: url) {
            outcome = .discarded(reason: "webhook URL not allowed: \(refusal)")
        } else if secret.count < WebhookSecret.minimumLength {
            outcome = .deactivate(reason: "the webhook secret is shorter than \(WebhookSecret.minimumLength) bytes")
        } else if let expiresAt = notification.expiresAt, expiresAt < now {
            outcome = .discarded(reason: "expired before it was sent")
        } else {
            let timeout = configuration.requestTimeout
            outcome = await sender.send(
                { try Self.request(for: notification, url: url, secret: secret, now: now, timeout: timeout) }, host: url.host
            ) { Self.outcome(for: $0, now: now) }
        }
        sender.logAttempt(notification, host: url.host, outcome: outcome)
        return outcome
    }

    /// The signed request for one attempt at `now`.
    static func request(
        for notification: OutgoingNotification, url: URL, secret: Data, now: Date, timeout: Duration?
    ) throws -> OutboundRequest {
        let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
        let body = try body(notification, timestamp: timestamp)
        let headers: HTTPHeaderFields = [
            "Content-Type": "application/json",
            "webhook-id": notification.id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": WebhookSignature.sign(id: notification.id, timestamp: timestamp, body: body, secret: secret),
        ]
        return OutboundRequest(method: .post, url: url, headers: headers, body: body, timeout: timeout, maxResponseBodySize: 64 * 1024)
    }

    /// The JSON body, sorted keys.
    static func body(_ notification: OutgoingNotification, timestamp: Int64) throws -> Data {
        struct Body: Encodable {
            var id, type, timestamp: String
            var data: [String: String]
        }
        var data = notification.data
        data["title"] = notification.title
        data["body"] = notification.body
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Body(
            id: notification.id, type: notification.category,
            timestamp: formatter.string(from: Date(timeIntervalSince1970: TimeInterval(timestamp))), data: data
        ))
    }

    /// What the receiver's answer means.
    static func outcome(for response: OutboundResponse, now: Date) -> DeliveryOutcome {
        switch response.status {
        case 200..<300:
            .delivered(status: response.status)
        case 410:
            .deactivate(reason: "webhook receiver answered 410: gone")
        case 429, 500..<600:
            HTTPDeliveryMapping.retry(response, now: now, from: "webhook receiver")
        default:
            .discarded(reason: "webhook receiver answered \(response.status)")
        }
    }
}
