public import Contracts
import Storage
public import Foundation

/// Enqueueing inside another module's transaction, without naming the backend: modules hold an
/// `any JobEnqueuing` and pass their `StoreTransaction`.
public protocol JobEnqueuing: Sendable {
    @discardableResult
    func enqueue(_ job: NewJob, in transaction: any StoreTransaction, now: Date) throws -> JobEnqueuer.Result
}
