public import Contracts
public import Foundation

/// Student profiles and the red id roster, behind a protocol: ``SQLiteStudentStore`` on SQLite.
/// Every method runs inside the caller's transaction. A red id taken by another profile is
/// ``RegistrationError/redIDInUse`` whatever the backend.
public protocol StudentStoring: Sendable {
    func insert(_ profile: StudentProfile, in transaction: any StoreTransaction) throws
    func update(_ profile: StudentProfile, in transaction: any StoreTransaction) throws
    func profile(accountID: Int64, in transaction: any StoreTransaction) throws -> StudentProfile?
    func profile(redID: String, in transaction: any StoreTransaction) throws -> StudentProfile?
    func isOnRoster(_ redID: String, in transaction: any StoreTransaction) throws -> Bool
    /// Replaces the red id roster; returns how many it now holds.
    func replaceRoster(_ redIDs: [String], now: Date, in transaction: any StoreTransaction) throws -> Int
    func rosterCount(in transaction: any StoreTransaction) throws -> Int
}
