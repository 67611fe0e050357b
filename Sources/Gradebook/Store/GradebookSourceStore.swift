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
    /// The source's sealed OAuth client secret (its developer key's), if it has one.
    func sealedClientSecret(id: Int64, in transaction: any StoreTransaction) throws -> String?
    /// Sets (or with nil clears) the sealed OAuth client secret; `expected` (when given) must
    /// still be the stored one (key rotation). False when the source is gone or changed.
    func setSealedClientSecret(id: Int64, _ sealed: String?, expected: String?, in transaction: any StoreTransaction) throws -> Bool
    /// Every source's sealed client secret (key rotation), by source id.
    func sealedClientSecrets(in transaction: any StoreTransaction) throws -> [(id: Int64, sealed: String)]
}
