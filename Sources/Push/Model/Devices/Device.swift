public import Foundation
public import HTTPClient

/// A place notifications go: an iOS app install (APNs), a browser (Web Push), a server
/// (webhook), a confirmed email address, a confirmed mobile number (text messages) or the log (demo and development).
public struct Device: Sendable, Equatable {
    public enum Channel: String, Sendable, Codable, CaseIterable {
        case apns, webpush, webhook, email, sms, log
    }

    public var id: Int64
    /// The owning gateway account; nil for a QuickHAC device known only by its uuid.
    public var accountID: Int64?
    public var channel: Channel
    public var name: String
    public var address: DeviceAddress
    public var active: Bool
    public var createdAt: Date
    /// When the device last registered (APNs 410 answers older than this do not deactivate it).
    public var registeredAt: Date
    public var lastSuccessAt: Date?
    public var lastFailureAt: Date?
    public var lastError: String?
    public var failureCount: Int
    /// When an email or SMS device's address was confirmed; nil until then (and the device is
    /// inactive: it gets nothing but its confirmation message). Nil for other channels.
    public var confirmedAt: Date?
    /// Categories turned off for this device alone (one-click unsubscribe from a mail);
    /// ``UnsubscribeTarget/everything`` turns off all of them.
    public var mutedCategories: Set<String>
    /// True when the row's sealed keys (webhook secret, Web Push keys) could not be opened: no
    /// vault in this process, or a key the vault no longer holds. The address then carries
    /// empty keys, and nothing is delivered to the device until they open again.
    public var keysUnavailable: Bool

    public init(
        id: Int64, accountID: Int64?, channel: Channel, name: String, address: DeviceAddress, active: Bool, createdAt: Date,
        registeredAt: Date, lastSuccessAt: Date? = nil, lastFailureAt: Date? = nil, lastError: String? = nil, failureCount: Int = 0,
        confirmedAt: Date? = nil, mutedCategories: Set<String> = [], keysUnavailable: Bool = false
    ) {
        self.id = id
        self.accountID = accountID
        self.channel = channel
        self.name = name
        self.address = address
        self.active = active
        self.createdAt = createdAt
        self.registeredAt = registeredAt
        self.lastSuccessAt = lastSuccessAt
        self.lastFailureAt = lastFailureAt
        self.lastError = lastError
        self.failureCount = failureCount
        self.confirmedAt = confirmedAt
        self.mutedCategories = mutedCategories
        self.keysUnavailable = keysUnavailable
    }

    /// Whether this device takes notifications of `category` (its own mutes; the student's
    /// preferences are ``NotificationPreferences``).
    public func wants(_ category: String) -> Bool {
        !mutedCategories.contains(UnsubscribeTarget.everything) && !mutedCategories.contains(category)
    }
}

/// Why a device registration was refused, naming the field.
public struct DeviceProblem: Error, Sendable, Equatable {
    public let field: String
    public let reason: String
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
}

/// Checks what a client sends to register a device.
public enum DeviceRules {
    /// An APNs device token: 64 to 200 hex digits.
    public static func apnsToken(_ raw: String) throws(DeviceProblem) -> String {
        let token = raw.lowercased()
        guard (64...200).contains(token.count), token.count % 2 == 0, token.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
            throw DeviceProblem(field: "token", reason: "must be the device token in hex (64 to 200 digits)")
        }
        return token
    }

    /// An APNs topic (the app's bundle id).
    public static func apnsTopic(_ raw: String) throws(DeviceProblem) -> String {
        guard (1...200).contains(raw.utf8.count), raw.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) }) else {
            throw DeviceProblem(field: "topic", reason: "must be the app's bundle id")
        }
        return raw
    }

    /// A user-supplied URL the gateway will POST to: https only, a host name or public address,
    /// at most 2048 characters. Numeric hosts other than dotted quads and bracketed IPv6 are
    /// refused (``NumericHost``), even where insecure endpoints are allowed. (Addresses are
    /// checked again when sending, after DNS.)
    public static func outboundURL(
        _ raw: String, field: String, allowInsecure: Bool = false, allowed: DestinationAllowList = .none
    ) throws(DeviceProblem) -> URL {
        guard raw.utf8.count <= 2048, let url = URL(string: raw), let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            throw DeviceProblem(field: field, reason: "must be an absolute https URL")
        }
        guard scheme == "https" || (allowInsecure && scheme == "http") else { throw DeviceProblem(field: field, reason: "must use https") }
        guard components.user == nil, components.password == nil else { throw DeviceProblem(field: field, reason: "must not carry credentials") }
        guard !NumericHost.isRefused(host) else { throw DeviceProblem(field: field, reason: NumericHost.reason) }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if !allowInsecure, isPrivateLiteral(host), !allowed.permits(address: bare), !allowed.lists(host: bare) {
            throw DeviceProblem(field: field, reason: "must not point at a loopback, private, link-local or metadata address")
        }
        return url
    }

    /// Literal addresses and names that never leave the machine or the private network.
    static func isPrivateLiteral(_ host: String) -> Bool {
        let lowered = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if lowered == "localhost" || lowered.hasSuffix(".localhost") || lowered.hasSuffix(".internal") || lowered == "metadata.google.internal" { return true }
        let parts = lowered.split(separator: ".").compactMap { Int($0) }
        if parts.count == 4 {
            switch (parts[0], parts[1]) {
            case (127, _), (10, _), (0, _), (169, 254), (192, 168), (100, 64...127): return true
            case (172, 16...31): return true
            default: return false
            }
        }
        if lowered.contains(":") {
            return lowered == "::1" || lowered == "::" || lowered.hasPrefix("fe80") || lowered.hasPrefix("fc") || lowered.hasPrefix("fd")
                || lowered.hasPrefix("::ffff:")
        }
        return false
    }
}
