/// Gradebook accounts owned by a device rather than a gateway account (QuickHAC devices are
/// known only by their uuid), answered by the Gradebook module, which seals the passwords in
/// its vault. The Push module stores which students of which account a device follows.
public protocol DeviceGradebookAccounts: Sendable {
    /// Checks the credentials against source `sourceID` (its login probe, throttled as a sign-in
    /// per upstream username and per `clientAddress`) and stores them for the device. Returns
    /// the account id and whether it was new (an existing one is updated).
    func store(
        deviceKey: String, sourceID: Int64, username: String, password: String, clientAddress: String?
    ) async throws(DeviceGradebookError) -> (id: Int64, created: Bool)
    /// Whether the stored account may see `student`'s grades: its own username, or one enrolled
    /// in a section it sees (the upstream's enrollments).
    func sees(student: String, accountID: Int64, clientAddress: String?) async throws(DeviceGradebookError) -> Bool
    /// The device's account with this username, if any.
    func account(deviceKey: String, username: String) async throws(DeviceGradebookError) -> Int64?
    /// Moves the device's accounts from its old key to its new one.
    func rekey(deviceKey: String, to newKey: String) async throws(DeviceGradebookError)
    /// How many accounts the device has stored.
    func accountCount(deviceKey: String) async throws(DeviceGradebookError) -> Int
    /// Removes every account of the device (it expired), with their sealed passwords and snapshots.
    func removeAll(deviceKey: String) async throws(DeviceGradebookError)
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
    /// Too many wrong passwords from this address or for this username, or the caller's share
    /// of the source is in use: try again after this many seconds.
    case throttled(retryAfterSeconds: Int)
}
