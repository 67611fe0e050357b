public import Contracts
public import Logging
public import PostgresNIO

/// One open PostgreSQL transaction, as the PostgreSQL stores get it: a leased connection that
/// runs statements synchronously on the thread of the unit of work (``GatewayPostgres`` runs
/// units on its own thread pool, never on an event loop or the concurrency pool). Every
/// statement is sent with its values bound (the extended query protocol), never spliced
/// into the SQL.
public final class PostgresTransaction: StoreTransaction, @unchecked Sendable {
    /// The connection the transaction runs on; lent to the unit of work only.
    public let connection: PostgresConnection
    let logger: Logger
    private var savepoints = 0

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Runs a statement and returns its rows.
    @discardableResult
    public func query(_ query: PostgresQuery, file: String = #fileID, line: Int = #line) throws -> PostgresQueryResult {
        try connection.query(query, logger: logger, file: file, line: line).wait()
    }

    /// Runs a statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    public func execute(_ query: PostgresQuery, file: String = #fileID, line: Int = #line) throws -> Int {
        try self.query(query, file: file, line: line).metadata.rows ?? 0
    }

    /// Runs `body` in a savepoint: when it throws, what it wrote is undone and the error rethrown,
    /// and the transaction goes on.
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepoints += 1
        defer { savepoints -= 1 }
        let name = "unit_of_work_\(savepoints)"
        try execute(PostgresQuery(unsafeSQL: "SAVEPOINT \(name)"))
        do {
            let result = try body()
            try execute(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            return result
        } catch {
            try execute(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(name)"))
            try execute(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            throw error
        }
    }
}

extension StoreTransaction {
    /// The PostgreSQL transaction this is, for the PostgreSQL stores.
    public func postgres() throws -> PostgresTransaction {
        guard let transaction = self as? PostgresTransaction else { throw ForeignTransaction(backend: "PostgreSQL") }
        return transaction
    }
}
