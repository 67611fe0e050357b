public import Contracts
public import GRDB
public import Storage
import Telemetry
import Tracing
import Synchronization

/// A GRDB connection is the SQLite backend's transaction: the SQLite stores take it back with
/// ``Contracts/StoreTransaction/sqlite()``.
extension Database: StoreTransaction {}

extension GatewayDatabase: TransactionRunner {
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await pool.read { db in try body(db) } }
        return try await GatewayTracing.transaction("read", system: "sqlite") { context in
            try await self.pool.read { db in try GatewayTracing.withContext(context) { try body(db) } }
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await writeSQLite { db in try body(db) } }
        return try await GatewayTracing.transaction("write", system: "sqlite") { context in
            try await self.writeSQLite { db in try GatewayTracing.withContext(context) { try body(db) } }
        }
    }

    /// One writer at a time already.
    public func write<T: Sendable>(inTurn lane: Int64, _ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await write(body)
    }

    /// One writer at a time.
    public var writesConcurrently: Bool { false }

    /// A write transaction: SQLite's statements outside one would each take the writer anyway.
    public func autocommit<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await write(body)
    }

    /// The one writer locks every row already.
    public func writeLockingRows<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await write(body)
    }

    public func writePreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        // Inline only when no write is running or queued; this one then counts as running, so
        // the others queue behind it rather than the other way round.
        guard !GatewayTracing.isEnabled, writesInFlight.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            return try await write(body)
        }
        defer { writesInFlight.subtract(1, ordering: .releasing) }
        return try writeOnThisThread(body)
    }

    /// GRDB's synchronous write: dispatch_sync on the writer's idle queue runs it right here.
    private func writeOnThisThread<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.write { db in try body(db) }
    }

    public func readAtStartup<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.read { db in try body(db) }
    }

    public func readPreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        if GatewayTracing.isEnabled { return try await read(body) }
        if let result = try inlineReaders.read({ db in try body(db) }) { return result }
        return try await pool.unsafeRead { db in try body(db) }
    }

    public func savepoint<T>(in transaction: any StoreTransaction, _ body: () throws -> T) throws -> T {
        let db = try transaction.sqlite()
        guard db.isInsideTransaction else { throw SavepointOutsideTransaction() }
        // Cached statements: group commit opens one savepoint per caller, and preparing the
        // three statements anew each time (as `Database.inSavepoint` does) costs more than
        // running them.
        try db.cachedStatement(sql: "SAVEPOINT unit_of_work").execute()
        do {
            let result = try body()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT unit_of_work").execute()
            return result
        } catch {
            // Undo what the body wrote (also when the release failed: its caller is told the
            // unit failed, so none of it may commit) and leave the savepoint; the transaction
            // goes on. The first error is the one the caller gets.
            do {
                try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT unit_of_work").execute()
                try db.cachedStatement(sql: "RELEASE SAVEPOINT unit_of_work").execute()
            } catch {
                // Nothing of the batch may commit then: end the whole transaction, so that its
                // commit fails for every caller in it.
                try? db.execute(sql: "ROLLBACK")
            }
            throw error
        }
    }
}

extension StoreTransaction {
    /// The GRDB connection this transaction is, for the SQLite stores.
    public func sqlite() throws -> Database {
        guard let db = self as? Database else { throw ForeignTransaction() }
        return db
    }
}
