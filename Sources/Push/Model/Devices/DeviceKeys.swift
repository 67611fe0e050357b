public import Contracts
public import Foundation

/// The secrets of one device's address, as they are sealed together in its row
/// (`push_devices.sealed_keys`): a webhook's signing secret, or a Web Push subscription's
/// `p256dh` key and `auth` secret. The plaintext that is sealed is this value's JSON; it never
/// leaves the store and the delivery path.
///
/// `description` and the mirror show which keys are present, never their values.
public struct DeviceKeys: Codable, Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The webhook's HMAC key (base64 in the JSON).
    public var webhookSecret: Data?
    /// The browser's P-256 public key, base64url.
    public var p256dh: String?
    /// The subscription's authentication secret, base64url.
    public var auth: String?

    public init(webhookSecret: Data? = nil, p256dh: String? = nil, auth: String? = nil) {
        self.webhookSecret = webhookSecret
        self.p256dh = p256dh
        self.auth = auth
    }

    /// The keys `address` carries, or nil for an address without secrets (APNs, email, log).
    public init?(of address: DeviceAddress) {
        switch address {
        case .webhook(_, let secret): self.init(webhookSecret: secret)
        case .webPush(_, let p256dh, let auth): self.init(p256dh: p256dh, auth: auth)
        case .apns, .email, .sms, .log: return nil
        }
    }

    /// The table whose rows hold sealed device keys, as the vault names it.
    public static let table = "push_devices"

    /// The row a device's keys are sealed for: the device and its owner (0 for a QuickHAC
    /// device, which has none).
    public static func context(deviceID: Int64, accountID: Int64?) -> SecretContext {
        SecretContext(table: table, rowID: deviceID, owner: accountID ?? 0)
    }

    /// The plaintext that is sealed: compact JSON.
    public func plaintext() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The keys back from the plaintext an open gave.
    public init(plaintext: String) throws {
        self = try JSONDecoder().decode(DeviceKeys.self, from: Data(plaintext.utf8))
    }

    public var description: String {
        let present = [webhookSecret.map { _ in "webhookSecret" }, p256dh.map { _ in "p256dh" }, auth.map { _ in "auth" }].compactMap { $0 }
        return "DeviceKeys(<redacted: \(present.joined(separator: ", "))>)"
    }

    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
