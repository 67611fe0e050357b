/// Which classes a student may not register for, answered by the Registration module for
/// modules that plan with classes (Scheduling's "only classes I can take"). The asker gets class
/// ids and rule names, never Registration's rows.
public protocol RegistrationEligibility: Sendable {
    /// Of `classIDs`, those the account's student may not register for for what they are
    /// (holds, their window, prerequisites, restrictions), whatever their current schedule and
    /// the seats: each with the failing rules' names (`hold`, `window`, `prerequisite`,
    /// `restriction`).
    func ineligibleClasses(accountID: Int64, among classIDs: [Int64]) async throws -> [Int64: [String]]
}
