public import Foundation

/// One notification as an APNs HTTP/2 request: `POST /3/device/{token}` with its `apns-*`
/// headers and JSON payload. Built (and validated) before anything is sent.
///
/// The payload is
/// `{"aps":{"alert":{"title":…,"body":…},"sound":"default","thread-id":category},"data":{…}}`,
/// `sound` only for urgent notifications and `data` only when there is some.
public struct APNsRequest: Sendable, Equatable {
    /// APNs refuses larger payloads for alert notifications (`413 PayloadTooLarge`).
    public static let maxPayloadBytes = 4096
    /// APNs refuses longer collapse ids (`400 BadCollapseId`).
    public static let maxCollapseIDBytes = 64

    /// The device token, lower-case hex.
    public let deviceToken: String
    /// `/3/device/{token}`.
    public let path: String
    /// Every header but `authorization`, names in lower case: `apns-topic`, `apns-push-type`,
    /// `apns-priority`, and when they apply `apns-expiration`, `apns-collapse-id`, `apns-id`;
    /// plus `content-type`.
    public let headers: [String: String]
    /// The JSON payload, at most ``maxPayloadBytes``.
    public let payload: Data

    /// Validates the token, topic and collapse id and encodes the payload.
    /// - Throws: ``APNsError`` for a malformed token, topic or collapse id, or a payload too large.
    public init(_ notification: OutgoingNotification, deviceToken: String, topic: String) throws(APNsError) {
        let token = try APNsDeviceToken.normalized(deviceToken)
        guard APNsDeviceToken.isValidTopic(topic) else { throw .invalidTopic }

        var headers = [
            "apns-topic": topic,
            "apns-push-type": "alert",
            // 10 = deliver immediately (wakes the device); 5 = may be delayed to save power.
            "apns-priority": notification.urgent ? "10" : "5",
            "content-type": "application/json",
        ]
        if let expiresAt = notification.expiresAt {
            // Seconds since the epoch; APNs stores and retries until then. Without it APNs
            // applies its own storage policy.
            headers["apns-expiration"] = String(max(Int64(expiresAt.timeIntervalSince1970.rounded(.up)), 1))
        }
        if let collapseID = notification.collapseID {
            try Self.validateCollapseID(collapseID)
            headers["apns-collapse-id"] = collapseID
        }
        if let uuid = UUID(uuidString: notification.id) {
            // APNs echoes it back and uses it to report the notification; it must be a UUID.
            headers["apns-id"] = uuid.uuidString.lowercased()
        }

        let payload = try Self.encodePayload(notification)
        guard payload.count <= Self.maxPayloadBytes else {
            throw .payloadTooLarge(size: payload.count, limit: Self.maxPayloadBytes)
        }
        self.deviceToken = token
        self.path = "/3/device/" + token
        self.headers = headers
        self.payload = payload
    }

    /// The request's header lines for libcurl (`name: value`), the provider token first.
    /// Also blanks libcurl's default `accept` and `expect` headers.
    public func headerLines(bearer providerToken: String) -> [String] {
        var lines = ["authorization: bearer " + providerToken]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            lines.append(name + ": " + value)
        }
        lines.append("accept:")
        lines.append("expect:")
        return lines
    }

    private static func validateCollapseID(_ collapseID: String) throws(APNsError) {
        let bytes = collapseID.utf8
        guard !bytes.isEmpty else { throw .invalidCollapseID(reason: "empty") }
        guard bytes.count <= maxCollapseIDBytes else {
            throw .invalidCollapseID(reason: "\(bytes.count) bytes, at most \(maxCollapseIDBytes)")
        }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw .invalidCollapseID(reason: "control characters")
        }
    }

    // MARK: - Payload

    private struct Payload: Encodable {
        var aps: APS
        var data: [String: String]?
    }

    private struct APS: Encodable {
        var alert: Alert
        var sound: String?
        var threadID: String

        enum CodingKeys: String, CodingKey {
            case alert, sound
            case threadID = "thread-id"
        }
    }

    private struct Alert: Encodable {
        var title: String
        var body: String
    }

    private static func encodePayload(_ notification: OutgoingNotification) throws(APNsError) -> Data {
        let payload = Payload(
            aps: APS(
                alert: Alert(title: notification.title, body: notification.body),
                sound: notification.urgent ? "default" : nil,
                threadID: notification.category
            ),
            data: notification.data.isEmpty ? nil : notification.data
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(payload)
        } catch {
            // Strings and string dictionaries always encode; kept total rather than trapping.
            throw .payloadTooLarge(size: 0, limit: maxPayloadBytes)
        }
    }
}
