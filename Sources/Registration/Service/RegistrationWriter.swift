import Catalog
public import Contracts
public import Foundation
import GatewayCore
import Storage
import Synchronization

/// Group commit for registration: concurrent writes (register, drop, waitlists, offers, admin
/// changes) queue to one writer, which runs a batch of them in one SQLite transaction, each in
/// its own savepoint, and answers each caller after the commit.
///
/// - A unit of work that throws is rolled back to its savepoint alone; the others commit. A
///   conflict for which PostgreSQL aborts the whole transaction (a serialization failure or a
///   deadlock) runs the whole batch again, every unit with it.
/// - A unit that returns `.failure` keeps what it wrote first (expired offers swept on the way),
///   as it did in a transaction of its own; its caller gets the refusal after the commit.
/// - If the commit fails, every caller of the batch gets the error: nothing of it is stored.
/// - Seat counts of every class the batch touched are read in the same transaction and handed
///   to the in-memory catalog once; classes the batch opened or closed to newcomers are
///   announced in that transaction (``OpenSeatAnnouncer``).
///
/// SQLite has one writer at a time anyway; batching turns N commits (N fsyncs and N lock
/// hand-offs) into one, while each caller still sees its own outcome. On PostgreSQL the
/// instances' writers take turns too (``TransactionRunner/write(inTurn:_:)``): their batches
/// touch the same few popular classes, and taking turns beats aborting and starting over.
final class RegistrationWriter: Sendable {
    typealias Work = @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Void

    private struct Item: Sendable {
        let run: Work
        let done: CheckedContinuation<Void, any Error>
    }

    /// Most units of work in one transaction.
    static let batchLimit = 256

    let transactions: any TransactionRunner
    let stores: RegistrationStores
    let catalog: CatalogService
    let clock: any GatewayClock
    private let queue = Mutex<(items: [Item], draining: Bool)>(([], false))
    private let committed = Atomic<Int>(0)

    /// Units of work waiting for the next batch.
    var waiting: Int { queue.withLock { $0.items.count } }
    /// Transactions the writer has committed.
    var batchesCommitted: Int { committed.load(ordering: .relaxed) }

    init(transactions: any TransactionRunner, stores: RegistrationStores, catalog: CatalogService, clock: any GatewayClock) {
        self.transactions = transactions
        self.stores = stores
        self.catalog = catalog
        self.clock = clock
    }

    /// Runs `body` in the next batch's transaction, in a savepoint of its own, and returns its
    /// result once that transaction has committed.
    func submit<T: Sendable>(
        _ body: @escaping @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Result<T, RegistrationError>
    ) async throws -> T {
        let slot = Slot<Result<T, RegistrationError>>()
        let transactions = self.transactions
        let work: Work = { db, now, touched in
            do {
                slot.store(.success(try transactions.savepoint(in: db) { try body(db, now, &touched) }))
            } catch where DatabaseAvailability.isConflict(error) {
                // PostgreSQL aborted the whole transaction for a conflict with another instance's:
                // the batch runs again from the start (the runner's retry), every unit with it.
                throw error
            } catch {
                slot.store(.failure(error))
            }
        }
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let start = queue.withLock { state -> Bool in
                state.items.append(Item(run: work, done: done))
                guard !state.draining else { return false }
                state.draining = true
                return true
            }
            if start { Task { await self.drain() } }
        }
        return try slot.take().get().get()
    }

    /// Takes batches until the queue is empty, then stops (the next submit starts it again).
    private func drain() async {
        while true {
            let batch = queue.withLock { state -> [Item] in
                let batch = Array(state.items.prefix(Self.batchLimit))
                state.items.removeFirst(batch.count)
                if batch.isEmpty { state.draining = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            let stores = self.stores, clock = self.clock, before = catalog.cachedSnapshot()
            do {
                let counts = try await transactions.write(inTurn: AdvisoryLocks.registrationWriter) { db in
                    var touched = Set<Int64>()
                    for item in batch { try item.run(db, clock.now(), &touched) }
                    let counts = try stores.catalog.seatCounts(of: touched, in: db)
                    try OpenSeatAnnouncer(stores: stores).announce(counts: counts, of: touched, before: before.wasOpen, now: clock.now(), in: db)
                    return counts
                }
                committed.add(1, ordering: .relaxed)
                catalog.apply(counts)
                for item in batch { item.done.resume() }
            } catch {
                for item in batch { item.done.resume(throwing: error) }
            }
        }
    }
}

/// One caller's outcome, written by the writer inside the transaction and read by the caller
/// after the commit (the continuation orders the two).
private final class Slot<Value: Sendable>: Sendable {
    private let stored = Mutex<Result<Value, any Error>?>(nil)

    func store(_ value: Result<Value, any Error>) { stored.withLock { $0 = value } }

    /// The outcome; a missing one (never the case once the batch has run) reads as cancelled.
    func take() throws -> Result<Value, any Error> {
        guard let value = stored.withLock({ $0 }) else { throw CancellationError() }
        return value
    }
}
