public import Storage
public import Contracts
import Dispatch
public import Logging
import NIOCore
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
        guard !connection.isClosed else { throw PostgresUnavailable(reason: "the connection is closed") }
        return try Self.wait(for: connection.query(query, logger: logger, file: file, line: line), on: connection)
    }

    /// Runs a prepared statement from the caller's task (``TransactionRunner/inTask(_:)``) and
    /// returns its rows. postgres-nio prepares it once per connection, by its type's name, and
    /// afterwards sends only its values: the server neither parses nor plans it again.
    ///
    /// A statement written to a connection that has just closed is never answered (see
    /// ``wait(for:on:)``); the connection is looked at first, and the pool hands out none that
    /// it knows closed, which leaves the instant between the look and the write.
    public func rows<Statement: PostgresPreparedStatement>(
        _ statement: Statement, file: String = #fileID, line: Int = #line
    ) async throws -> [Statement.Row] {
        guard !connection.isClosed else { throw PostgresUnavailable(reason: "the connection is closed") }
        var rows: [Statement.Row] = []
        for try await row in try await connection.execute(statement, logger: logger, file: file, line: line) {
            rows.append(row)
        }
        return rows
    }

    /// How long a statement's answer may be missing once its connection has closed.
    static let closedGrace: DispatchTimeInterval = .seconds(1)

    /// Waits on this (pool) thread for a statement's answer.
    ///
    /// postgres-nio (1.33) never completes a statement written to a connection that had just
    /// closed (the write fails with nobody to tell), and a plain `wait()` then blocks the thread
    /// for good: with PostgreSQL stopped, the pool threads stuck one after another until the
    /// instance served nothing, not even after PostgreSQL was back, and never finished shutting
    /// down. So the wait looks at the connection twice a second, and a statement still
    /// unanswered ``closedGrace`` after its connection closed fails with ``PostgresUnavailable``.
    static func wait<T: Sendable>(for future: EventLoopFuture<T>, on connection: PostgresConnection) throws -> T {
        let answered = DispatchSemaphore(value: 0)
        future.whenComplete { _ in answered.signal() }
        var closedAt: DispatchTime?
        while answered.wait(timeout: .now() + .milliseconds(500)) == .timedOut {
            guard connection.isClosed else { continue }
            if let closedAt, DispatchTime.now() >= closedAt + closedGrace {
                throw PostgresUnavailable(reason: "the connection closed under a statement")
            }
            closedAt = closedAt ?? .now()
        }
        return try future.wait()
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
