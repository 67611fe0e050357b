public import Contracts
public import Foundation
import GatewayCore
import Storage
import Synchronization

/// How a registration reaches the database: group commit where writes run one after another
/// (SQLite), a transaction of its own per unit where they run at once (PostgreSQL).
///
/// **One after another (SQLite).** Concurrent writes (register, drop, waitlists, offers, admin
/// changes) queue to one writer, which runs a batch of them in one transaction, each in its own
/// savepoint, and answers each caller after the commit.
///
/// - A unit of work that throws is rolled back to its savepoint alone; the others commit. A
///   conflict for which PostgreSQL aborts the whole transaction (a serialization failure or a
///   deadlock) runs the whole batch again, every unit with it.
/// - A unit that returns `.failure` keeps what it wrote first (expired offers swept on the way),
///   as it did in a transaction of its own; its caller gets the refusal after the commit.
/// - If the commit fails, every caller of the batch gets the error: nothing of it is stored.
/// - What the units touched (class ids) is handed, in the same transaction, to the use cases'
///   ``UnitsFinishing`` (Registration's: ``SeatEvents``, which reads the classes' counts and
///   announces open and close events), and what it returns to it again after the commit. The
///   writer itself knows nothing of seats.
///
/// SQLite has one writer at a time anyway; batching turns N commits (N fsyncs and N lock
/// hand-offs) into one, while each caller still sees its own outcome.
///
/// **At once (PostgreSQL).** No writer and no lane: each unit is one short transaction on a
/// connection of the pool, so units of different classes never wait for each other, on one
/// instance or many. A unit that names the rows it decides on (``RowLocks``: its class and its
/// student) runs at READ COMMITTED and locks them first (``RowLocking``), so units of one class
/// take their turns at its row, in the database, as Banner and PeopleSoft do on Oracle; the
/// rest run SERIALIZABLE and are run again when the server aborts one for a conflict. The
/// finisher runs inside each unit's own transaction.
final class RegistrationWriter<Finisher: UnitsFinishing>: Sendable {
    typealias Work = @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Void

    private struct Item: Sendable {
        let run: Work
        let done: CheckedContinuation<Void, any Error>
    }

    /// Most units of work in one transaction.
    static var batchLimit: Int { 256 }

    let transactions: any TransactionRunner
    let stores: RegistrationStores
    let finisher: Finisher
    let clock: any GatewayClock
    private let queue = Mutex<(items: [Item], draining: Bool)>(([], false))
    private let committed = Atomic<Int>(0)

    /// Units of work waiting for the next batch.
    var waiting: Int { queue.withLock { $0.items.count } }
    /// Transactions the writer has committed.
    var batchesCommitted: Int { committed.load(ordering: .relaxed) }

    init(transactions: any TransactionRunner, stores: RegistrationStores, finisher: Finisher, clock: any GatewayClock) {
        self.transactions = transactions
        self.stores = stores
        self.finisher = finisher
        self.clock = clock
    }

    /// Runs `body` in the next batch's transaction, in a savepoint of its own, and returns its
    /// result once that transaction has committed; where writes run at once, in a transaction
    /// of its own that locks `locks` first.
    func submit<T: Sendable>(
        locking locks: RowLocks? = nil,
        _ body: @escaping @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Result<T, RegistrationError>
    ) async throws -> T {
        if transactions.writesConcurrently { return try await alone(locking: locks, body) }
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

    /// One unit in a transaction of its own: its row locks, the body, and the finisher; the
    /// finisher's summary is handed back to it after the commit.
    private func alone<T: Sendable>(
        locking locks: RowLocks?,
        _ body: @escaping @Sendable (_ db: any StoreTransaction, _ now: Date, _ touched: inout Set<Int64>) throws -> Result<T, RegistrationError>
    ) async throws -> T {
        let stores = self.stores, clock = self.clock, finisher = self.finisher, context = finisher.beforeUnits()
        let unit: @Sendable (any StoreTransaction) throws -> (Result<T, RegistrationError>, Finisher.Summary) = { db in
            if let locks { try stores.lock(classes: locks.classes, students: locks.students, in: db) }
            var touched = Set<Int64>()
            let outcome = try body(db, clock.now(), &touched)
            return (outcome, try finisher.finish(touched: touched, context: context, now: clock.now(), in: db))
        }
        let (outcome, summary) = try await locks == nil ? transactions.write(unit) : transactions.writeLockingRows(unit)
        committed.add(1, ordering: .relaxed)
        finisher.committed(summary)
        return try outcome.get()
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
            let clock = self.clock, finisher = self.finisher, context = finisher.beforeUnits()
            do {
                let summary = try await transactions.write { db in
                    var touched = Set<Int64>()
                    for item in batch { try item.run(db, clock.now(), &touched) }
                    return try finisher.finish(touched: touched, context: context, now: clock.now(), in: db)
                }
                committed.add(1, ordering: .relaxed)
                finisher.committed(summary)
                for item in batch { item.done.resume() }
            } catch {
                for item in batch { item.done.resume(throwing: error) }
            }
        }
    }
}

/// The rows a unit decides on, locked first where writes run at once (``RowLocking``): the
/// class (or classes) whose seats, line or offers it changes, and the student whose classes
/// the rules count.
struct RowLocks: Sendable {
    var classes: [Int64]
    var students: [Int64]

    /// One student's change in one class.
    static func student(_ studentID: Int64, in classID: Int64) -> RowLocks { RowLocks(classes: [classID], students: [studentID]) }
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
