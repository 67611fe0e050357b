public import Foundation
public import Storage

/// Browsing the catalog: subjects, filtered and paged class lists, one class with its seats.
/// Reads come from the in-memory ``CatalogCache``; a module that changes seat counters
/// (Registration) reports the committed counts to it with ``apply(_:)``.
public final class CatalogService: Sendable {
    public let transactions: any TransactionRunner
    public let store: any CatalogStoring
    public let cache: CatalogCache

    public init(transactions: any TransactionRunner, store: any CatalogStoring, refreshInterval: TimeInterval) throws {
        self.transactions = transactions
        self.store = store
        self.cache = try CatalogCache(transactions: transactions, store: store, refreshInterval: refreshInterval)
    }

    /// Every subject with its class count, by id.
    public func subjects() async throws -> [CatalogSubject] {
        try await cache.snapshot().index.subjects
    }

    /// The subjects with classes in `term`, by id, each with that term's class count.
    public func subjects(inTerm term: String) async throws -> [CatalogSubject] {
        try await cache.snapshot().index.subjects(inTerm: term)
    }

    /// The ids of the classes matching `query`, in id order.
    public func classIDs(matching query: ClassQuery) async throws -> [Int64] {
        let snapshot = try await cache.snapshot()
        let ids = snapshot.index.ids
        return snapshot.index.matches(query, seats: snapshot.seats).map { ids[$0] }
    }

    /// One page of classes matching `query`, after class id `afterID`, and whether more follow.
    public func classes(matching query: ClassQuery, afterID: Int64?, limit: Int) async throws -> (items: [ClassListing], more: Bool) {
        let snapshot = try await cache.snapshot()
        let slots = snapshot.index.matches(query, seats: snapshot.seats, afterID: afterID, limit: limit + 1)
        return (slots.prefix(limit).map(snapshot.listing), slots.count > limit)
    }

    /// A class with its current seats; nil when no class has this id.
    public func classListing(id: Int64) async throws -> ClassListing? {
        try await cache.snapshot().listing(id: id)
    }

    /// Whether the catalog holds no class at all (a new database).
    public func isEmpty() async throws -> Bool {
        try await transactions.read { [store] db in try store.classCount(in: db) == 0 }
    }

    /// The current snapshot, reloaded first when another process changed the catalog.
    public func snapshot() async throws -> CatalogCache.Snapshot { try await cache.snapshot() }
    /// The snapshot as it is, without looking at the database.
    public func cachedSnapshot() -> CatalogCache.Snapshot { cache.cachedSnapshot() }
    /// Reads the whole catalog again (after an import or an admin change).
    @discardableResult
    public func reload() async throws -> CatalogCache.Snapshot { try await cache.reload() }
    /// Takes committed seat counts of some classes.
    public func apply(_ counts: [Int64: SeatCount]) { cache.apply(counts) }
}
