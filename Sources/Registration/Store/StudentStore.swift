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
    /// Lets (or stops letting) the student's friends see their enrollments.
    func setSharesEnrollments(_ shares: Bool, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws
    /// Whether the student lets friends see their enrollments.
    func sharesEnrollments(accountID: Int64, in transaction: any StoreTransaction) throws -> Bool
    /// The enrolled class ids of those of `accountIDs` who share their enrollments (each
    /// ascending); those who don't are absent.
    func sharedEnrollments(of accountIDs: [Int64], in transaction: any StoreTransaction) throws -> [Int64: [Int64]]
}
