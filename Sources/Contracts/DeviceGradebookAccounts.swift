/// Gradebook accounts owned by a device rather than a gateway account (QuickHAC devices are
/// known only by their uuid), answered by the Gradebook module, which seals the passwords in
/// its vault. The Push module stores which students of which account a device follows.
public protocol DeviceGradebookAccounts: Sendable {
    /// Checks the credentials against source `sourceID` (its login probe) and stores them for
    /// the device. Returns the account id and whether it was new (an existing one is updated).
    func store(deviceKey: String, sourceID: Int64, username: String, password: String) async throws(DeviceGradebookError) -> (id: Int64, created: Bool)
    /// The device's account with this username, if any.
    func account(deviceKey: String, username: String) async throws(DeviceGradebookError) -> Int64?
    /// How many accounts the device has stored.
    func accountCount(deviceKey: String) async throws(DeviceGradebookError) -> Int
    /// Removes the account and its sealed password.
    func remove(id: Int64) async throws(DeviceGradebookError)
    /// How often each account's source wants it polled, in seconds, by account id.
    func pollIntervals() async throws -> [Int64: Int]
}

/// Why a device's gradebook account could not be stored or read. Never carries a password.
public enum DeviceGradebookError: Error, Sendable, Equatable {
    /// No gradebook source has this id (QuickHAC's "district").
    case unknownSource
    /// The upstream refused the credentials.
    case refused
    /// The upstream or the vault could not be reached.
    case unavailable
}
