public import Foundation
public import Storage
import Synchronization

/// The in-memory catalog the read paths use: a ``CatalogIndex`` and the live ``SeatCount`` of
/// every class, aligned with the index's slots.
///
/// - Enrollment changes report the seat counts they committed (``apply(_:)``); a count with an
///   older revision never replaces a newer one, so late reports cannot roll numbers back.
/// - Catalog changes made in this process call ``reload()``. Changes made by another process
///   (`gateway import-catalog` against a live database) are noticed within
///   `refreshInterval`: at most that often, a reader checks the catalog version.
/// - With instances sharing a PostgreSQL database, each follows the others' seat and catalog
///   changes as they commit (``follow(_:)`` on a ``CatalogChangeFeed``).
/// - Readers take a snapshot (two copy-on-write references) under a lock held for nanoseconds,
///   then filter without any lock.
public final class CatalogCache: Sendable {
    /// What readers see: the index and the seats aligned with its slots.
    public struct Snapshot: Sendable {
        public let index: CatalogIndex
        public let seats: [SeatCount]

        public func listing(_ slot: Int) -> ClassListing {
            ClassListing(info: index.classes[slot], seats: seats[slot])
        }

        public func listing(id: Int64) -> ClassListing? {
            index.slot(of: id).map(listing)
        }
    }

    private struct State {
        var index: CatalogIndex
        var seats: [SeatCount]
        var checkedAt: ContinuousClock.Instant
    }

    private let transactions: any TransactionRunner
    private let store: any CatalogStoring
    private let refreshInterval: Duration
    private let state: Mutex<State>

    /// Loads the catalog synchronously (at start-up).
    public init(transactions: any TransactionRunner, store: any CatalogStoring, refreshInterval: TimeInterval) throws {
        self.transactions = transactions
        self.store = store
        self.refreshInterval = .milliseconds(Int64(max(0, refreshInterval) * 1000))
        let (index, seats) = try transactions.readAtStartup { db in try store.loadIndex(in: db) }
        state = Mutex(State(index: index, seats: seats, checkedAt: .now))
    }

    /// The current snapshot, first reloading when another process changed the catalog.
    public func snapshot() async throws -> Snapshot {
        let now = ContinuousClock.now
        let (current, due) = state.withLock { state -> (Snapshot, Bool) in
            let due = now - state.checkedAt >= refreshInterval
            if due { state.checkedAt = now }
            return (Snapshot(index: state.index, seats: state.seats), due)
        }
        guard due else { return current }
        let version = try await transactions.read { [store] db in try store.version(in: db) }
        guard version != current.index.version else { return current }
        return try await reload()
    }

    /// The current snapshot without checking for changes by other processes.
    public func cachedSnapshot() -> Snapshot {
        state.withLock { Snapshot(index: $0.index, seats: $0.seats) }
    }

    /// Rebuilds the index from the database.
    @discardableResult
    public func reload() async throws -> Snapshot {
        let (index, seats) = try await transactions.read { [store] db in try store.loadIndex(in: db) }
        return state.withLock { state in
            guard index.version >= state.index.version else { return Snapshot(index: state.index, seats: state.seats) }
            // Keep any count reported after our read began (it has a higher revision).
            var merged = seats
            for (slot, item) in index.classes.enumerated() {
                if let old = state.index.slot(of: item.id), state.seats[old].revision > merged[slot].revision {
                    merged[slot] = state.seats[old]
                }
            }
            state.index = index
            state.seats = merged
            state.checkedAt = .now
            return Snapshot(index: index, seats: merged)
        }
    }

    /// Follows `feed` until the task is cancelled: seat changes made through other instances are
    /// read and applied as they are announced, a new catalog version rebuilds the index, and a
    /// resync (the feed's start, a reconnection) reads everything once. A failed read is logged
    /// by the next refresh: the catalog stays as it was until then.
    public func follow(_ feed: any CatalogChangeFeed) async {
        await feed.follow { [self] change in
            switch change {
            case .catalog, .resync:
                _ = try? await reload()
            case .counts(let counts):
                apply(counts)
            case .seats(let ids):
                let store = self.store
                // One indexed statement: no snapshot to share (counts carry their revision).
                if let counts = try? await transactions.readPreferringInline({ db in try store.seatCounts(of: ids, in: db) }) { apply(counts) }
            }
        }
    }

    /// Records seat counts committed by an enrollment change.
    public func apply(_ counts: [Int64: SeatCount]) {
        guard !counts.isEmpty else { return }
        state.withLock { state in
            for (id, count) in counts {
                guard let slot = state.index.slot(of: id), state.seats[slot].revision <= count.revision else { continue }
                state.seats[slot] = count
            }
        }
    }
}
