public import Crypto
public import Foundation
import GatewayCore

/// The confirmation texts' own quota, pure: smaller than email's and counted apart from it
/// (texts cost money per message and can be pointed at premium-rate numbers, SMS pumping), and
/// shared out per **client network** (an IPv4 address or an IPv6 /64, as sign-ups count them:
/// ``ClientNetwork``), so one network can't spend the whole gateway's hour:
///
/// - the whole gateway sends at most ``hourlyCap`` confirmation texts in any hour (the
///   gateway-wide cap of ``RecipientQuota``, on the `sms` channel);
/// - one network may cause at most ``perNetworkHourly`` of them in any hour (its share of the
///   cap, a tenth by default), so when one network has used its share, others' texts still go;
/// - one network may add at most ``newDevicesPerNetwork`` new SMS devices in any
///   ``RecipientQuota/window`` (24 hours), whichever accounts it signs in as.
///
/// A network is known only by a keyed hash (HMAC-SHA256 under the recipients' server secret),
/// so the table that counts never holds an address.
public struct SMSQuota: Sendable, Equatable {
    /// Confirmation texts the whole gateway sends in any hour.
    public var hourlyCap: Int
    /// Confirmation texts one client network may cause in any hour.
    public var perNetworkHourly: Int
    /// New SMS devices one client network may add in any 24 hours.
    public var newDevicesPerNetwork: Int

    /// One network's share of the hourly cap, by default: a tenth.
    public static let networkShareDivisor = 10
    /// New SMS devices per network per day, by default.
    public static let defaultNewDevicesPerNetwork = 20

    public init(hourlyCap: Int, perNetworkHourly: Int? = nil, newDevicesPerNetwork: Int = SMSQuota.defaultNewDevicesPerNetwork) {
        self.hourlyCap = max(1, hourlyCap)
        self.perNetworkHourly = min(self.hourlyCap, max(1, perNetworkHourly ?? self.hourlyCap / Self.networkShareDivisor))
        self.newDevicesPerNetwork = max(1, newDevicesPerNetwork)
    }

    /// The texts' quota when the operator set only the email cap (`--confirmations-per-hour`,
    /// 300 by default): a third of it (100 texts an hour), a tenth of that per network (10).
    public static func derived(fromEmailCap emailCap: Int) -> SMSQuota {
        SMSQuota(hourlyCap: max(1, emailCap / 3))
    }

    /// A client network's key in the quota table: HMAC-SHA256 under `secret` of its
    /// ``ClientNetwork/key(_:)`` (`unknown` without an address, so clients without one share a
    /// single share).
    public static func networkKey(clientAddress: String?, secret: SymmetricKey) -> Data {
        let network = clientAddress.map(ClientNetwork.key) ?? "unknown"
        return Data(HMAC<SHA256>.authenticationCode(for: Data("sms-network:\(network)".utf8), using: secret))
    }

    /// What may happen now.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// The network had its share of the hour's texts; another may go after this many seconds.
        case networkTexts(retryAfterSeconds: Int)
        /// The network added its day's new SMS devices; another may be added after this many seconds.
        case networkDevices(retryAfterSeconds: Int)
    }

    /// One text the network caused: when, and whether it was a new device's first.
    public struct Send: Sendable, Equatable {
        public var at: Date
        public var newDevice: Bool

        public init(at: Date, newDevice: Bool) {
            self.at = at
            self.newDevice = newDevice
        }
    }

    /// Whether the network that caused `networkSends` (its texts in the last 24 hours) may cause
    /// one more now, for a new device (`newDevice`) or a resend.
    public func decide(networkSends: [Send], newDevice: Bool, now: Date) -> Decision {
        if newDevice {
            let devices = networkSends.filter { $0.newDevice && $0.at > now.addingTimeInterval(-RecipientQuota.window) }.map(\.at).sorted()
            if devices.count >= newDevicesPerNetwork {
                let frees = devices[devices.count - newDevicesPerNetwork].addingTimeInterval(RecipientQuota.window)
                return .networkDevices(retryAfterSeconds: RecipientQuota.seconds(until: frees, now: now, cap: RecipientQuota.window))
            }
        }
        let hour = networkSends.map(\.at).filter { $0 > now.addingTimeInterval(-RecipientQuota.hourlyWindow) }.sorted()
        if hour.count >= perNetworkHourly {
            let frees = hour[hour.count - perNetworkHourly].addingTimeInterval(RecipientQuota.hourlyWindow)
            return .networkTexts(retryAfterSeconds: RecipientQuota.seconds(until: frees, now: now, cap: RecipientQuota.hourlyWindow))
        }
        return .allowed
    }
}
