public import Contracts
public import Foundation
import Storage

/// Devices and the students they follow, behind a protocol (``SQLiteDeviceStore``).
public protocol DeviceStoring: Sendable {
    func insert(_ device: NewDevice, at now: Date, in transaction: any StoreTransaction) throws -> Device
    func devices(ofAccount accountID: Int64, in transaction: any StoreTransaction) throws -> [Device]
    func device(id: Int64, in transaction: any StoreTransaction) throws -> Device?
    func device(uuidHash: String, in transaction: any StoreTransaction) throws -> Device?
    /// Sets a device's address (a new APNs token) and marks it registered now and active.
    func reregister(id: Int64, address: DeviceAddress, at now: Date, in transaction: any StoreTransaction) throws
    func delete(id: Int64, in transaction: any StoreTransaction) throws -> Bool
    func recordSuccess(id: Int64, at now: Date, in transaction: any StoreTransaction) throws
    func recordFailure(id: Int64, error: String, deactivate: Bool, at now: Date, in transaction: any StoreTransaction) throws
    /// Marks an email device's address confirmed now, and active.
    func confirmEmail(id: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Adds `category` to the device's muted categories.
    func mute(id: Int64, category: String, in transaction: any StoreTransaction) throws
    /// QuickHAC links: a device follows a student of a stored gradebook account.
    func link(deviceID: Int64, gradebookAccountID: Int64, studentID: String, at now: Date, in transaction: any StoreTransaction) throws -> Bool
    func unlink(deviceID: Int64, gradebookAccountID: Int64, studentID: String?, in transaction: any StoreTransaction) throws -> Int
    func links(deviceID: Int64, in transaction: any StoreTransaction) throws -> [(gradebookAccountID: Int64, studentID: String)]
    /// Active devices following a student of a gradebook account.
    func followers(gradebookAccountID: Int64, studentID: String, in transaction: any StoreTransaction) throws -> [Int64]
    /// Every (gradebook account, student) some active device follows.
    func followedStudents(in transaction: any StoreTransaction) throws -> [(gradebookAccountID: Int64, studentID: String)]
    /// Records that the poll window starting at `windowStart` (epoch seconds) is queued for a
    /// followed student; false when that window, or a later one, already was.
    func claimPollWindow(gradebookAccountID: Int64, studentID: String, windowStart: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// Forgets the poll windows of students no active device follows any more.
    func forgetUnfollowedPollWindows(in transaction: any StoreTransaction) throws
}
