import Foundation
public import GatewayCore
public import HTTPClient
public import Logging

/// Delivers to browsers' Web Push subscriptions (RFC 8030): the notification as JSON
/// (`id`, `category`, `title`, `body`, `data`), encrypted for the subscription (RFC 8291
/// `aes128gcm`), POSTed to its endpoint with a VAPID `Authorization` (RFC 8292), `TTL`,
/// `Urgency` and, when the collapse id allows it, `Topic`.
///
/// Answers: 200, 201, 202 (any 2xx) delivered; 404 and 410 deactivate the subscription; 429
/// and 5xx retry after `Retry-After`; 413 and other 4xx are discarded with the reason;
/// connection failures retry; a refused destination is discarded.
///
/// Endpoints come from users, so they are held to ``PushEndpointPolicy``: `https` only and no
/// literal restricted address, and the client (a `CurlHTTPClient` with no
/// `allowedDestinations`) refuses restricted resolved addresses at connect time. Logs name the
/// endpoint's host only (its path identifies the subscription), never payloads or keys.
public struct WebPushChannel: NotificationChannel {
    /// How the channel signs and sends.
    public struct Configuration: Sendable {
        /// Signs every request's VAPID token.
        public var vapid: VAPIDSigner
        /// `TTL` for notifications without `expiresAt`: four weeks, in seconds.
        public var defaultTTL: Int
        /// Total time for one request.
        public var requestTimeout: Duration
        /// Allows `http` to loopback endpoints (see ``PushEndpointPolicy``). Tests and demos only.
        public var allowInsecureLoopbackForTesting: Bool

        public init(
            vapid: VAPIDSigner, defaultTTL: Int = 4 * 7 * 24 * 60 * 60, requestTimeout: Duration = .seconds(30),
            allowInsecureLoopbackForTesting: Bool = false
        ) {
            self.vapid = vapid
            self.defaultTTL = defaultTTL
            self.requestTimeout = requestTimeout
            self.allowInsecureLoopbackForTesting = allowInsecureLoopbackForTesting
        }
    }

    let configuration: Configuration
    let sender: UserEndpointSender
    var policy: PushEndpointPolicy { sender.policy }

    /// - Parameter client: sends the requests; a `CurlHTTPClient` with no
    ///   `allowedDestinations` in production. Its allow list also relaxes the pre-check.
    public init(
        client: any HTTPClient, configuration: Configuration, clock: any GatewayClock = SystemClock(),
        logger: Logger = Logger(label: "campus-gateway.push")
    ) {
        self.configuration = configuration
        self.sender = UserEndpointSender(
            channel: "webpush", client: client, allowInsecureLoopbackForTesting: configuration.allowInsecureLoopbackForTesting,
            clock: clock, logger: logger
        )
    }

    public func deliver(_ notification: OutgoingNotification, to address: DeviceAddress) async -> DeliveryOutcome {
        guard case .webPush(let endpoint, let p256dh, let auth) = address else {
            return .discarded(reason: "not a Web Push address")
        }
        let now = sender.clock.now()
        let outcome: DeliveryOutcome
        switch request(for: notification, endpoint: endpoint, p256dh: p256dh, auth: auth, now: now) {
        case .failure(let refused):
            outcome = refused.outcome
        case .success(let request):
            outcome = await sender.send({ request }, host: endpoint.host) { Self.outcome(for: $0, now: now) }
        }
        sender.logAttempt(notification, host: endpoint.host, outcome: outcome)
        return outcome
    }

    /// A notification that is not sent, and what becomes of it.
    struct Refused: Error {
        var outcome: DeliveryOutcome
    }

    /// The encrypted, signed request for one notification, or why there is none.
    func request(
        for notification: OutgoingNotification, endpoint: URL, p256dh: String, auth: String, now: Date
    ) -> Result<OutboundRequest, Refused> {
        if let refusal = policy.refusal(for: endpoint) {
            return .failure(Refused(outcome: .discarded(reason: "endpoint not allowed: \(refusal)")))
        }
        var ttl = configuration.defaultTTL
        if let expiresAt = notification.expiresAt {
            guard expiresAt >= now else { return .failure(Refused(outcome: .discarded(reason: "expired before it was sent"))) }
            ttl = Int(expiresAt.timeIntervalSince(now).rounded(.down))
        }
        guard let userAgentKey = Base64URL.decode(p256dh), let authSecret = Base64URL.decode(auth) else {
            return .failure(Refused(outcome: .deactivate(reason: "the subscription's keys are not base64url")))
        }
        let body: Data
        let authorization: String
        do {
            let payload = try Self.payload(notification)
            body = try WebPushEncryption.encrypt(payload, userAgentPublicKey: userAgentKey, authSecret: authSecret)
            authorization = try configuration.vapid.authorization(for: endpoint, now: now)
        } catch let error as WebPushEncryptionError {
            switch error {
            case .payloadTooLarge: return .failure(Refused(outcome: .discarded(reason: error.description)))
            default: return .failure(Refused(outcome: .deactivate(reason: error.description)))
            }
        } catch {
            return .failure(Refused(outcome: .discarded(reason: "\(error)")))
        }
        var headers: HTTPHeaderFields = [
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": String(ttl),
            "Urgency": notification.urgent ? "high" : "normal",
        ]
        if let topic = Self.topic(notification.collapseID) { headers.add(name: "Topic", value: topic) }
        headers.add(name: "Authorization", value: authorization)
        return .success(OutboundRequest(
            method: .post, url: endpoint, headers: headers, body: body, timeout: configuration.requestTimeout,
            maxResponseBodySize: 64 * 1024
        ))
    }

    /// What the push service's answer means.
    static func outcome(for response: OutboundResponse, now: Date) -> DeliveryOutcome {
        switch response.status {
        case 200..<300:
            return .delivered(status: response.status)
        case 404, 410:
            return .deactivate(reason: "push service answered \(response.status): the subscription is gone")
        case 429, 500..<600:
            return HTTPDeliveryMapping.retry(response, now: now, from: "push service")
        case 413:
            return .discarded(reason: "push service answered 413: payload too large")
        default:
            let detail = HTTPDeliveryMapping.snippet(response.body)
            return .discarded(reason: "push service answered \(response.status)" + (detail.isEmpty ? "" : ": \(detail)"))
        }
    }

    /// The plaintext a service worker receives: sorted-key JSON.
    static func payload(_ notification: OutgoingNotification) throws -> Data {
        struct Payload: Encodable {
            var id, category, title, body: String
            var data: [String: String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Payload(
            id: notification.id, category: notification.category, title: notification.title,
            body: notification.body, data: notification.data
        ))
    }

    /// The `Topic` header: the collapse id when it is base64url-safe and at most 32
    /// characters (RFC 8030 §5.4), otherwise none.
    static func topic(_ collapseID: String?) -> String? {
        guard let collapseID, collapseID.utf8.count <= 32, Base64URL.isURLSafe(collapseID) else { return nil }
        return collapseID
    }
}
