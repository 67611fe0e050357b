public import Contracts
public import Foundation
import Storage

/// Gradebook sources, behind a protocol (``SQLiteGradebookSourceStore`` on SQLite).
public protocol GradebookSourceStoring: Sendable {
    func sources(in transaction: any StoreTransaction) throws -> [GradebookSource]
    func source(id: Int64, in transaction: any StoreTransaction) throws -> GradebookSource?
    /// Creates or replaces; true when created.
    func upsert(_ source: GradebookSource, at now: Date, in transaction: any StoreTransaction) throws -> Bool
    /// False when there was none. Stored accounts of the source go with it.
    func delete(id: Int64, in transaction: any StoreTransaction) throws -> Bool
}
