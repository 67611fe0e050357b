public import Contracts
public import GRDB
import Synchronization

/// Runs units of work in transactions of the storage backend. Services take this, not the
/// database: a PostgreSQL backend would be a second implementation with its own stores.
public protocol TransactionRunner: Sendable {
    /// Runs `body` in a read transaction (a consistent snapshot).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body` in one write transaction: everything it does commits together or not at all.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// ``write(_:)`` for a small write on the request path (enqueueing a job): it runs on the
    /// calling thread, without the two thread hops of an async write (which cost more than a
    /// one-row insert and its commit), waiting if need be for short writes ahead of it (a
    /// job batch: milliseconds). While a write that may take long is running or queued, it
    /// queues like ``write(_:)`` instead, suspended rather than holding a thread. Only for
    /// bodies that are short.
    func writePreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body` on a reader connection on the calling thread, without hopping to the
    /// database's queue and back: for a short indexed lookup on the request path (a credential
    /// or token check), where the two thread hops of ``read(_:)`` cost more than the read
    /// itself. The caller's thread waits meanwhile, so never use it for a scan or anything
    /// that may take long. WAL readers don't wait for the writer; a caller waits only while
    /// every reader connection is busy, and those finish on their own threads.
    ///
    /// No transaction is opened (that would double the statements of a one-row lookup): each
    /// statement sees the latest commit, so a body of several statements may see a commit
    /// land between them. Use ``read(_:)`` when they must agree.
    func readInline<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
    /// Runs `body` in a read transaction, blocking the caller: for start-up only (building
    /// services before anything is served).
    func readAtStartup<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
    /// Runs `body` inside a savepoint of the open write transaction `transaction`: when it
    /// throws, what it wrote is rolled back and the error rethrown, and the enclosing
    /// transaction goes on (group commit runs many callers' work in one transaction this way).
    func savepoint<T>(in transaction: any StoreTransaction, _ body: () throws -> T) throws -> T
}

extension Database: StoreTransaction {}

extension GatewayDatabase: TransactionRunner {
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await pool.read { db in try body(db) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await writeSQLite { db in try body(db) }
    }

    public func writePreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard longWritesInFlight.load(ordering: .acquiring) == 0 else { return try await write(body) }
        // Only short writes are ahead (a long one that starts now queues behind this one; a
        // write by another process can still make this wait up to the busy timeout).
        return try writeOnThisThread(body)
    }

    /// GRDB's synchronous write: dispatch_sync on the writer's idle queue runs it right here.
    private func writeOnThisThread<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.write { db in try body(db) }
    }

    public func readAtStartup<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.read { db in try body(db) }
    }

    public func readInline<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        // GRDB's synchronous read runs on the calling thread when the reader's queue is idle
        // (dispatch_sync's fast path), which it is: each reader serves one read at a time.
        try pool.unsafeRead { db in try body(db) }
    }

    public func savepoint<T>(in transaction: any StoreTransaction, _ body: () throws -> T) throws -> T {
        let db = try transaction.sqlite()
        guard db.isInsideTransaction else { throw SavepointOutsideTransaction() }
        // Cached statements: group commit opens one savepoint per caller, and preparing the
        // three statements anew each time (as `Database.inSavepoint` does) costs more than
        // running them.
        try db.cachedStatement(sql: "SAVEPOINT unit_of_work").execute()
        let result: T
        do {
            result = try body()
        } catch {
            // Undo what the body wrote and leave the savepoint; the transaction goes on.
            try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT unit_of_work").execute()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT unit_of_work").execute()
            throw error
        }
        try db.cachedStatement(sql: "RELEASE SAVEPOINT unit_of_work").execute()
        return result
    }
}

/// ``TransactionRunner/savepoint(in:_:)`` was called outside a write transaction.
public struct SavepointOutsideTransaction: Error, CustomStringConvertible {
    public var description: String { "a savepoint needs an open write transaction" }
}

/// A transaction handed to a SQLite store that belongs to another backend.
public struct ForeignTransaction: Error, CustomStringConvertible {
    public var description: String { "a SQLite store was given a transaction of another storage backend" }
}

extension StoreTransaction {
    /// The GRDB connection this transaction is, for the SQLite stores.
    public func sqlite() throws -> Database {
        guard let db = self as? Database else { throw ForeignTransaction() }
        return db
    }
}
