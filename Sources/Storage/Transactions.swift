public import Contracts

/// Runs units of work in transactions of the storage backend. Services take this, not the
/// database: SQLite (``GatewayDatabase``) and PostgreSQL (``GatewayPostgres``) each implement it,
/// with stores of their own.
public protocol TransactionRunner: Sendable {
    /// Runs `body` in a read transaction (a consistent snapshot).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body` in one write transaction: everything it does commits together or not at all.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// ``write(_:)`` for a unit that runs in turn with every other unit of `lane`, across all
    /// instances: on PostgreSQL the units of a lane wait for each other (a session advisory
    /// lock held around the transaction) instead of aborting each other for conflicts and
    /// starting over, which a hot row (one class everyone wants) makes nearly certain. The
    /// transaction stays SERIALIZABLE, so writers outside the lane are still safe. SQLite has
    /// one writer anyway. Keys come from `AdvisoryLocks`.
    func write<T: Sendable>(inTurn lane: Int64, _ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Whether write transactions of this backend run at the same time (PostgreSQL: each on a
    /// connection of its own, waiting for each other only where they lock the same rows) or
    /// one after another (SQLite has one writer). A use case that batches writes (group
    /// commit) batches only where they run one after another.
    var writesConcurrently: Bool { get }
    /// ``write(_:)`` for a unit that locks the rows it decides on first, through its stores
    /// (`SELECT ... FOR NO KEY UPDATE` in a fixed order), and so needs no snapshot of its own:
    /// on PostgreSQL it runs at READ COMMITTED, each statement after the lock seeing what the
    /// lock's previous holder committed, so units of different rows never wait for each other
    /// and units of the same row take turns in the database instead of aborting each other.
    /// Deadlocks are run again. On SQLite it is ``write(_:)``.
    func writeLockingRows<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body`'s statements outside any transaction: each statement is its own (PostgreSQL's
    /// autocommit, at READ COMMITTED), so one that does all its work (a function call) costs
    /// one round trip, without BEGIN and COMMIT. For single statements that need no snapshot
    /// shared with another. On SQLite it is ``write(_:)``.
    func autocommit<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// ``write(_:)`` for a small write on the request path (enqueueing a job): the same
    /// transaction and the same guarantees, where a backend may save the cost of scheduling it.
    /// Only for bodies that are short. On SQLite, when no other write is running or queued, it
    /// runs on the calling thread at once, without the two thread hops of an async write (which
    /// cost more than a one-row insert and its commit); otherwise it queues like ``write(_:)``,
    /// suspended rather than holding a thread (a write by another process, such as an
    /// operator's command, can still make the inline path wait, up to the busy timeout). On
    /// PostgreSQL it is ``write(_:)``: every unit goes over the network anyway.
    func writePreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// ``read(_:)`` for a short indexed lookup on the request path (a credential or token
    /// check), where a backend may save the cost of scheduling it. Never use it for a scan or
    /// anything that may take long.
    ///
    /// Callers may rely on each statement seeing the latest commit, not on several statements
    /// agreeing: a body of several statements may see a commit land between them. Use
    /// ``read(_:)`` when they must agree. On SQLite, when one of a few connections kept for
    /// this is free, it runs on the calling thread at once, without the two thread hops of
    /// ``read(_:)`` (which cost more than the lookup), and opens no transaction (that would
    /// double the statements of a one-row lookup); otherwise it reads the usual way, and it
    /// never waits for a kept connection. On PostgreSQL its statements run outside a
    /// transaction (autocommit), each its own.
    func readPreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body` in the caller's own task, on one connection, its statements outside any
    /// transaction (each its own, as in ``autocommit(_:)``): for the request path's hottest
    /// statements, which a backend's stores send from async methods as prepared statements,
    /// with no thread of a unit-of-work pool between the request and the database. A body the
    /// server aborts for a deadlock is run again from the start. Backends whose statements
    /// must run on threads of their own (SQLite) have no such path and throw
    /// ``NoStatementsInTask``: use it only where a store of the backend asks for it.
    func inTask<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T
    /// Runs `body` in a read transaction, blocking the caller: for start-up only (building
    /// services before anything is served).
    func readAtStartup<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
    /// Runs `body` inside a savepoint of the open write transaction `transaction`: when it
    /// throws, what it wrote is rolled back and the error rethrown, and the enclosing
    /// transaction goes on (group commit runs many callers' work in one transaction this way).
    /// Savepoints nest. When undoing the savepoint itself fails, SQLite rolls the whole
    /// enclosing transaction back (its commit then fails for every caller in it) and rethrows
    /// the body's error; PostgreSQL throws the undo's error instead. On SQLite, a
    /// `transaction` outside a write transaction throws ``SavepointOutsideTransaction``;
    /// PostgreSQL does not check (every transaction it hands a unit of work is open).
    func savepoint<T>(in transaction: any StoreTransaction, _ body: () throws -> T) throws -> T
}

extension TransactionRunner {
    public func inTask<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        throw NoStatementsInTask()
    }
}

/// ``TransactionRunner/inTask(_:)`` on a backend whose statements can't be sent from a task.
public struct NoStatementsInTask: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "this storage backend sends no statements from the caller's task" }
}

/// ``TransactionRunner/savepoint(in:_:)`` was called outside a write transaction.
public struct SavepointOutsideTransaction: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "a savepoint needs an open write transaction" }
}

/// A transaction handed to a store of one backend that belongs to another backend.
public struct ForeignTransaction: Error, CustomStringConvertible {
    /// The backend of the store that was handed it.
    public var backend = "SQLite"

    public init(backend: String = "SQLite") { self.backend = backend }

    public var description: String { "a \(backend) store was given a transaction of another storage backend" }
}
