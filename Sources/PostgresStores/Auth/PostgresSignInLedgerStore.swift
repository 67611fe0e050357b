public import Auth
public import Contracts
public import Foundation
import PostgresNIO
import Storage
import PostgresStorage

/// ``SignInLedgerStoring`` on PostgreSQL. The throttle's reservation reads the counters and
/// adds to them in one SERIALIZABLE unit, so concurrent guesses on any instances can't all pass
/// one limit: PostgreSQL aborts all but one, and they run again seeing it.
public struct PostgresSignInLedgerStore: SignInLedgerStoring {
    public init() {}

    public func knownSince(pair: Data, in transaction: any StoreTransaction) throws -> Date? {
        try transaction.postgres().query("SELECT signed_in_at FROM auth_known_addresses WHERE pair = \(pair)").first?.decode(Date.self)
    }

    public func entries(counters: [Data], since: Date, in transaction: any StoreTransaction) throws -> [Data: [Date]] {
        // One statement per counter (an attempt has three at most).
        var result: [Data: [Date]] = [:]
        for counter in counters {
            result[counter] = try transaction.postgres().query(
                "SELECT at FROM auth_sign_in_entries WHERE counter = \(counter) AND at >= \(since) ORDER BY at, id"
            ).map { try $0.decode(Date.self) }
        }
        return result
    }

    public func record(counters: [Data], at: Date, reservation: Int64, in transaction: any StoreTransaction) throws {
        for counter in counters {
            try transaction.postgres().execute(
                "INSERT INTO auth_sign_in_entries (counter, at, reservation) VALUES (\(counter), \(at), \(reservation))"
            )
        }
    }

    public func release(reservation: Int64, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM auth_sign_in_entries WHERE reservation = \(reservation)")
    }

    public func clear(counters: [Data], in transaction: any StoreTransaction) throws {
        for counter in counters { try transaction.postgres().execute("DELETE FROM auth_sign_in_entries WHERE counter = \(counter)") }
    }

    public func markKnown(pair: Data, at: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO auth_known_addresses (pair, signed_in_at) VALUES (\(pair), \(at))
            ON CONFLICT (pair) DO UPDATE SET signed_in_at = excluded.signed_in_at
            """)
    }

    public func prune(entriesBefore: Date, knownBefore: Date, in transaction: any StoreTransaction) throws -> Int {
        let entries = try transaction.postgres().execute("DELETE FROM auth_sign_in_entries WHERE at < \(entriesBefore)")
        return try entries + transaction.postgres().execute("DELETE FROM auth_known_addresses WHERE signed_in_at < \(knownBefore)")
    }
}
