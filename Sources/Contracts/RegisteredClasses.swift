/// The classes a student is registered in, answered by the Registration module for modules
/// that show or export them (Scheduling's calendar). Nothing else about registration leaks:
/// the asker gets class ids, never Registration's rows.
public protocol RegisteredClasses: Sendable {
    /// The class ids the account's student is enrolled in, ascending; empty when the account
    /// has no student profile.
    func enrolledClassIDs(accountID: Int64) async throws -> [Int64]
}
