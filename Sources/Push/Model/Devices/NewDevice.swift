public import Contracts
public import Foundation

/// A device to create, before it has an id.
public struct NewDevice: Sendable {
    public var accountID: Int64?
    public var uuidHash: String?
    public var name: String
    public var address: DeviceAddress
    /// False for an email device until its address is confirmed.
    public var active: Bool

    public init(accountID: Int64?, uuidHash: String? = nil, name: String, address: DeviceAddress, active: Bool = true) {
        self.accountID = accountID
        self.uuidHash = uuidHash
        self.name = name
        self.address = address
        self.active = active
    }
}
