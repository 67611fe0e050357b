public import Contracts
public import Foundation

/// The sign-in throttle's counters, kept in the database so that every instance counts every
/// attempt (``SharedSignInThrottle``). Counters and (username, address) pairs are 16-byte HMAC
/// tags under the server key, never the text. Every method runs in the caller's transaction.
public protocol SignInLedgerStoring: Sendable {
    /// When the pair last signed in, if it did.
    func knownSince(pair: Data, in transaction: any StoreTransaction) throws -> Date?
    /// Each counter's entries at or after `since`, in time order.
    func entries(counters: [Data], since: Date, in transaction: any StoreTransaction) throws -> [Data: [Date]]
    /// Counts an entry at `at` on each counter, under `reservation` (0: a failure no one gives back).
    func record(counters: [Data], at: Date, reservation: Int64, in transaction: any StoreTransaction) throws
    /// Removes a reservation's entries; how many.
    @discardableResult
    func release(reservation: Int64, in transaction: any StoreTransaction) throws -> Int
    /// Removes every entry of these counters.
    func clear(counters: [Data], in transaction: any StoreTransaction) throws
    /// Records that the pair signed in at `at`.
    func markKnown(pair: Data, at: Date, in transaction: any StoreTransaction) throws
    /// Deletes entries before `entriesBefore` and pairs last known before `knownBefore`; how many rows.
    @discardableResult
    func prune(entriesBefore: Date, knownBefore: Date, in transaction: any StoreTransaction) throws -> Int
}
