import Foundation
import Contracts

/// The clear columns of a device's address, as both backends store them; its keys go sealed
/// into `sealed_keys` (``DeviceKeys``).
struct DeviceAddressColumns {
    var channel: Device.Channel
    var token: String?, environment: String?, topic: String?
    var endpoint: String?
    var email: String?

    init(channel: Device.Channel, token: String? = nil, environment: String? = nil, topic: String? = nil, endpoint: String? = nil, email: String? = nil) {
        self.channel = channel
        self.token = token
        self.environment = environment
        self.topic = topic
        self.endpoint = endpoint
        self.email = email
    }

    init(_ address: DeviceAddress) {
        switch address {
        case .apns(let token, let environment, let topic):
            self.init(channel: .apns, token: token, environment: environment.rawValue, topic: topic)
        case .webPush(let endpoint, _, _):
            self.init(channel: .webpush, endpoint: endpoint.absoluteString)
        case .webhook(let url, _):
            self.init(channel: .webhook, endpoint: url.absoluteString)
        case .email(let address):
            self.init(channel: .email, email: address)
        case .log:
            self.init(channel: .log)
        }
    }
}

/// What reading a row's keys gave.
enum DeviceKeysRead {
    /// Opened from `sealed_keys` (or, on SQLite, read from the clear columns of a row not sealed
    /// yet); empty keys when the row has none.
    case opened(DeviceKeys)
    /// Sealed, but this store has no vault or the vault can't open them.
    case unavailable
}

/// A device store that seals devices' keys with the credential vault, bound to their rows.
protocol DeviceKeySealing {
    var sealer: (any SecretSealing)? { get }
}

extension DeviceKeySealing {
    func seal(_ keys: DeviceKeys, deviceID: Int64, accountID: Int64?) throws -> String {
        guard let sealer else { throw DeviceKeysUnsealable() }
        return try sealer.seal(try keys.plaintext(), context: DeviceKeys.context(deviceID: deviceID, accountID: accountID))
    }
}
