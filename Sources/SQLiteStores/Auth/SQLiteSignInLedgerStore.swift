public import Auth
public import Contracts
public import Foundation
import GRDB
import Storage
import SQLiteStorage

/// ``SignInLedgerStoring`` on SQLite: times as milliseconds since 1970.
public struct SQLiteSignInLedgerStore: SignInLedgerStoring {
    public init() {}

    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    public func knownSince(pair: Data, in transaction: any StoreTransaction) throws -> Date? {
        try Int64.fetchOne(try transaction.sqlite(), sql: "SELECT signed_in_ms FROM auth_known_addresses WHERE pair = ?", arguments: [pair])
            .map(Self.date)
    }

    public func entries(counters: [Data], since: Date, in transaction: any StoreTransaction) throws -> [Data: [Date]] {
        let db = try transaction.sqlite()
        var result: [Data: [Date]] = [:]
        for counter in counters {
            let times = try Int64.fetchAll(
                db, sql: "SELECT at_ms FROM auth_sign_in_entries WHERE counter = ? AND at_ms >= ? ORDER BY at_ms, rowid",
                arguments: [counter, Self.ms(since)]
            )
            result[counter] = times.map(Self.date)
        }
        return result
    }

    public func record(counters: [Data], at: Date, reservation: Int64, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        for counter in counters {
            try db.execute(
                sql: "INSERT INTO auth_sign_in_entries (counter, at_ms, reservation) VALUES (?, ?, ?)",
                arguments: [counter, Self.ms(at), reservation]
            )
        }
    }

    public func release(reservation: Int64, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM auth_sign_in_entries WHERE reservation = ?", arguments: [reservation])
        return db.changesCount
    }

    public func clear(counters: [Data], in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        for counter in counters { try db.execute(sql: "DELETE FROM auth_sign_in_entries WHERE counter = ?", arguments: [counter]) }
    }

    public func markKnown(pair: Data, at: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(
            sql: """
                INSERT INTO auth_known_addresses (pair, signed_in_ms) VALUES (?, ?)
                ON CONFLICT (pair) DO UPDATE SET signed_in_ms = excluded.signed_in_ms
                """,
            arguments: [pair, Self.ms(at)]
        )
    }

    public func prune(entriesBefore: Date, knownBefore: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM auth_sign_in_entries WHERE at_ms < ?", arguments: [Self.ms(entriesBefore)])
        var count = db.changesCount
        try db.execute(sql: "DELETE FROM auth_known_addresses WHERE signed_in_ms < ?", arguments: [Self.ms(knownBefore)])
        count += db.changesCount
        return count
    }
}
