public import Contracts
public import GRDB

/// Runs units of work in transactions of the storage backend. Services take this, not the
/// database: a PostgreSQL backend would be a second implementation with its own stores.
public protocol TransactionRunner: Sendable {
    /// Runs `body` in a read transaction (a consistent snapshot).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Runs `body` in one write transaction: everything it does commits together or not at all.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
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
        try await pool.write { db in try body(db) }
    }

    public func readAtStartup<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try pool.read { db in try body(db) }
    }

    public func savepoint<T>(in transaction: any StoreTransaction, _ body: () throws -> T) throws -> T {
        let db = try transaction.sqlite()
        var result: T?
        try db.inSavepoint {
            result = try body()
            return .commit
        }
        return result!
    }
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
