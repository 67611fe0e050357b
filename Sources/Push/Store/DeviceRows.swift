import Foundation
package import Contracts

/// The clear columns of a device's address, as both backends store them; its keys go sealed
/// into `sealed_keys` (``DeviceKeys``).
package struct DeviceAddressColumns {
    package var channel: Device.Channel
    package var token: String?, environment: String?, topic: String?
    package var endpoint: String?
    package var email: String?
    /// An SMS device's number (E.164).
    package var phone: String?

    package init(
        channel: Device.Channel, token: String? = nil, environment: String? = nil, topic: String? = nil, endpoint: String? = nil, email: String? = nil,
        phone: String? = nil
    ) {
        self.phone = phone
        self.channel = channel
        self.token = token
        self.environment = environment
        self.topic = topic
        self.endpoint = endpoint
        self.email = email
    }

    package init(_ address: DeviceAddress) {
        switch address {
        case .apns(let token, let environment, let topic):
            self.init(channel: .apns, token: token, environment: environment.rawValue, topic: topic)
        case .webPush(let endpoint, _, _):
            self.init(channel: .webpush, endpoint: endpoint.absoluteString)
        case .webhook(let url, _):
            self.init(channel: .webhook, endpoint: url.absoluteString)
        case .email(let address):
            self.init(channel: .email, email: address)
        case .sms(let phone):
            self.init(channel: .sms, phone: phone)
        case .log:
            self.init(channel: .log)
        }
    }
}

extension DeviceAddressColumns {
    /// The address these columns hold, with the keys `keys` reads from the row's sealed column:
    /// nil for a row that can't be read (a column its channel needs is missing or malformed).
    /// Keys that can't be opened give the address without them, and `keysUnavailable`.
    package func address(keys: () throws -> DeviceKeysRead) rethrows -> (address: DeviceAddress, keysUnavailable: Bool)? {
        switch channel {
        case .apns:
            guard let token, let topic, let environment = APNsEnvironment(rawValue: environment ?? "") else { return nil }
            return (.apns(token: token, environment: environment, topic: topic), false)
        case .webpush:
            guard let endpoint = URL(string: endpoint ?? "") else { return nil }
            switch try keys() {
            case .opened(let keys):
                guard let p256dh = keys.p256dh, let auth = keys.auth else { return nil }
                return (.webPush(endpoint: endpoint, p256dh: p256dh, auth: auth), false)
            case .unavailable:
                return (.webPush(endpoint: endpoint, p256dh: "", auth: ""), true)
            }
        case .webhook:
            guard let url = URL(string: endpoint ?? "") else { return nil }
            switch try keys() {
            case .opened(let keys):
                guard let secret = keys.webhookSecret else { return nil }
                return (.webhook(url: url, secret: secret), false)
            case .unavailable:
                return (.webhook(url: url, secret: Data()), true)
            }
        case .email:
            guard let email else { return nil }
            return (.email(address: email), false)
        case .sms:
            guard let phone else { return nil }
            return (.sms(phone: phone), false)
        case .log:
            return (.log, false)
        }
    }
}

/// What reading a row's keys gave.
package enum DeviceKeysRead {
    /// Opened from `sealed_keys` (or, on SQLite, read from the clear columns of a row not sealed
    /// yet); empty keys when the row has none.
    case opened(DeviceKeys)
    /// Sealed, but this store has no vault or the vault can't open them.
    case unavailable
}

/// A device store that seals devices' keys with the credential vault, bound to their rows.
package protocol DeviceKeySealing {
    var sealer: (any SecretSealing)? { get }
}

extension DeviceKeySealing {
    package func seal(_ keys: DeviceKeys, deviceID: Int64, accountID: Int64?) throws -> String {
        guard let sealer else { throw DeviceKeysUnsealable() }
        return try sealer.seal(try keys.plaintext(), context: DeviceKeys.context(deviceID: deviceID, accountID: accountID))
    }
}

/// Why a device's keys could not be sealed: this store has no vault (a webhook or Web Push
/// device is then refused rather than written in clear).
public struct DeviceKeysUnsealable: Error, Sendable, CustomStringConvertible {
    public var description: String { "push: no vault to seal device keys with (webhook and Web Push devices need one)" }
}
