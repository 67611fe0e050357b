public import Foundation

/// What APNs answered to one request, and what that means for the notification
/// (``outcome``).
///
/// | answer | outcome |
/// | --- | --- |
/// | 2xx | `.delivered(status:)` |
/// | 410 with `timestamp` (ms) | `.unregistered(since:reason:)`: deactivate unless the device registered again after it |
/// | 410 without `timestamp` | `.deactivate(reason:)` |
/// | 400 `BadDeviceToken`, `DeviceTokenNotForTopic` | `.deactivate(reason:)` |
/// | 403 `ExpiredProviderToken` | `.retry` (the channel signs a new provider token) |
/// | 429, 5xx, anything else unexpected | `.retry(after: Retry-After, reason:)` |
/// | other 4xx | `.discarded(reason:)`, with APNs' reason |
public struct APNsResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// APNs' `reason` (`BadDeviceToken`, `Unregistered`, …), if the body had one.
    public var reason: String?
    /// For 410: when APNs last confirmed the token was no longer valid for the topic.
    public var timestamp: Date?
    /// The `apns-id` header: APNs' id for the notification.
    public var apnsID: String?
    /// The `retry-after` header, in seconds, if present and numeric.
    public var retryAfter: Duration?

    public init(status: Int, reason: String? = nil, timestamp: Date? = nil, apnsID: String? = nil, retryAfter: Duration? = nil) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.retryAfter = retryAfter
    }

    /// Parses a response: `headers` with lower-case names, `body` APNs' JSON error (or empty).
    public init(status: Int, headers: [String: String], body: Data) {
        self.init(status: status, apnsID: headers["apns-id"])
        if let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), let seconds = Int(value), seconds >= 0 {
            retryAfter = .seconds(seconds)
        }
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return }
        reason = object["reason"] as? String
        if let milliseconds = (object["timestamp"] as? NSNumber)?.doubleValue {
            timestamp = Date(timeIntervalSince1970: milliseconds / 1000)
        }
    }

    /// The reasons that mean the device token will never work for this topic.
    public static let deadTokenReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic"]

    /// Whether the provider token was too old; the channel then signs a new one.
    public var isExpiredProviderToken: Bool { status == 403 && reason == "ExpiredProviderToken" }

    /// What to do with the notification and its device.
    public var outcome: DeliveryOutcome {
        let described = reason.map { "\(status) \($0)" } ?? "status \(status)"
        switch status {
        case 200..<300:
            return .delivered(status: status)
        case 410:
            let reason = reason ?? "Unregistered"
            if let timestamp { return .unregistered(since: timestamp, reason: reason) }
            return .deactivate(reason: reason)
        case 400 where reason.map(Self.deadTokenReasons.contains) ?? false:
            return .deactivate(reason: reason ?? described)
        case 403 where isExpiredProviderToken:
            return .retry(after: nil, reason: described)
        case 429, 500..<600:
            return .retry(after: retryAfter, reason: described)
        case 400..<500:
            return .discarded(reason: described)
        default:
            // 1xx/3xx are never APNs answers; treat as a transient failure.
            return .retry(after: retryAfter, reason: "unexpected \(described)")
        }
    }
}
