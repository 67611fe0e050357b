public import Foundation
public import Contracts
import Storage

/// Each gradebook source's poll health: failures in a row and when polling may resume
/// (``SQLiteSourceHealthStore`` on SQLite).
public protocol SourceHealthStoring: Sendable {
    func health(sourceID: Int64, in transaction: any StoreTransaction) throws -> SourceHealth
    func all(in transaction: any StoreTransaction) throws -> [Int64: SourceHealth]
    func save(_ health: SourceHealth, in transaction: any StoreTransaction) throws
}
