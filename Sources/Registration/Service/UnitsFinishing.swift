public import Contracts
public import Foundation

/// What the use cases do with the units of work the writer (``RegistrationWriter``) ran
/// together: inside the transaction, with the ids the units touched; after the commit, with
/// what that returned. The writer runs it and knows nothing of what it decides.
protocol UnitsFinishing: Sendable {
    /// What the use cases take before the units run (the state they compare against).
    associatedtype Context: Sendable
    /// What the transaction hands over to ``committed(_:)``.
    associatedtype Summary: Sendable

    /// Taken before the transaction begins.
    func beforeUnits() -> Context
    /// Runs inside the transaction, after every unit.
    func finish(touched: Set<Int64>, context: Context, now: Date, in db: any StoreTransaction) throws -> Summary
    /// Runs after the commit, with what ``finish(touched:context:now:in:)`` returned.
    func committed(_ summary: Summary)
}
