public import Foundation
public import GatewayCore
public import Storage
import Synchronization

/// Admins' gradebook sources: list, read, create or replace, delete.
public final class GradebookSourceService: Sendable {
    let transactions: any TransactionRunner
    let store: any GradebookSourceStoring
    let health: any SourceHealthStoring
    let clock: any GatewayClock
    /// Sources read on every proxied request: kept in memory for `refreshInterval` (changes made
    /// in this process refresh them at once; another process's within the interval).
    private let cached = Mutex<(sources: [Int64: GradebookSource], loadedAt: ContinuousClock.Instant)?>(nil)
    let refreshInterval: Duration = .seconds(5)

    public init(transactions: any TransactionRunner, store: any GradebookSourceStoring, health: any SourceHealthStoring, clock: any GatewayClock) {
        self.transactions = transactions
        self.store = store
        self.health = health
        self.clock = clock
    }

    public func sources() async throws -> [GradebookSource] {
        try await transactions.read { [store] db in try store.sources(in: db) }
    }

    public func source(id: Int64) async throws -> GradebookSource {
        let now = ContinuousClock.now
        if let current = cached.withLock({ $0 }), now - current.loadedAt < refreshInterval {
            guard let found = current.sources[id] else { throw GradebookError.sourceNotFound("\(id)") }
            return found
        }
        let all = try await transactions.read { [store] db in try store.sources(in: db) }
        let table = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        cached.withLock { $0 = (table, now) }
        guard let found = table[id] else { throw GradebookError.sourceNotFound("\(id)") }
        return found
    }

    /// Each source's poll health as of now (sources never polled have none).
    public func health() async throws -> (bySource: [Int64: SourceHealth], now: Date) {
        let now = clock.now()
        return (try await transactions.read { [health] db in try health.all(in: db) }, now)
    }

    /// Forgets the cached sources (after a change).
    func invalidate() { cached.withLock { $0 = nil } }

    /// Creates a source; 409 when the id is taken.
    public func create(_ source: GradebookSource) async throws -> GradebookSource {
        try Self.check(source)
        let now = clock.now()
        try await transactions.write { [store] db in
            guard try store.source(id: source.id, in: db) == nil else { throw GradebookError.sourceExists(source.id) }
            _ = try store.upsert(source, at: now, in: db)
        }
        invalidate()
        return source
    }

    /// Creates or replaces a source; true when created.
    public func put(_ source: GradebookSource) async throws -> Bool {
        try Self.check(source)
        let now = clock.now()
        let created = try await transactions.write { [store] db in try store.upsert(source, at: now, in: db) }
        invalidate()
        return created
    }

    public func delete(id: Int64) async throws {
        let deleted = try await transactions.write { [store] db in try store.delete(id: id, in: db) }
        invalidate()
        guard deleted else { throw GradebookError.sourceNotFound("\(id)") }
    }

    static func check(_ source: GradebookSource) throws(GradebookError) {
        do {
            try source.validate()
        } catch {
            throw .invalid(field: error.field, message: "\(error.field) \(error.reason).")
        }
    }
}
