/// A gradebook account a device (a QuickHAC phone) signed in with: its password sealed by the
/// vault, bound to the row.
public struct StoredDeviceAccount: Sendable, Equatable {
    public var id: Int64
    public var deviceKey: String
    public var sourceID: Int64
    public var username: String
    public var sealedPassword: String

    public init(id: Int64, deviceKey: String, sourceID: Int64, username: String, sealedPassword: String) {
        self.id = id
        self.deviceKey = deviceKey
        self.sourceID = sourceID
        self.username = username
        self.sealedPassword = sealedPassword
    }
}
