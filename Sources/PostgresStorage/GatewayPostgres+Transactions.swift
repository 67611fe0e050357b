public import Storage
import NIOPosix
import PostgresNIO
public import Contracts
import Telemetry
import Tracing

/// ``TransactionRunner`` on PostgreSQL: each unit of work is one transaction of ``GatewayPostgres``,
/// a span of its own when tracing is on (``Telemetry/GatewayTracing/transaction(_:system:_:)``).
extension GatewayPostgres: TransactionRunner {
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await transaction(.read) { try body($0) } }
        return try await GatewayTracing.transaction("read", system: "postgresql") { context in
            try await self.transaction(.read) { transaction in try GatewayTracing.withContext(context) { try body(transaction) } }
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await transaction(.write) { try body($0) } }
        return try await GatewayTracing.transaction("write", system: "postgresql") { context in
            try await self.transaction(.write) { transaction in try GatewayTracing.withContext(context) { try body(transaction) } }
        }
    }

    public func write<T: Sendable>(inTurn lane: Int64, _ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await transaction(.write, inTurn: lane) { try body($0) } }
        return try await GatewayTracing.transaction("write", system: "postgresql") { context in
            try await self.transaction(.write, inTurn: lane) { transaction in try GatewayTracing.withContext(context) { try body(transaction) } }
        }
    }

    /// Each unit on a connection of its own.
    public var writesConcurrently: Bool { true }

    public func writeLockingRows<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await transaction(.lockStep) { try body($0) } }
        return try await GatewayTracing.transaction("write", system: "postgresql") { context in
            try await self.transaction(.lockStep) { transaction in try GatewayTracing.withContext(context) { try body(transaction) } }
        }
    }

    public func autocommit<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await transaction(.autocommit) { try body($0) } }
        return try await GatewayTracing.transaction("statement", system: "postgresql") { context in
            try await self.transaction(.autocommit) { transaction in try GatewayTracing.withContext(context) { try body(transaction) } }
        }
    }

    /// No inline path on PostgreSQL: every unit goes over the network anyway.
    public func writePreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await write(body)
    }

    /// Statements outside a transaction (autocommit): a short lookup on the request path (a
    /// credential check) saves BEGIN and COMMIT, two of its four round trips. Each statement
    /// sees the latest commit, which is all ``TransactionRunner/readPreferringInline(_:)``
    /// promises.
    public func readPreferringInline<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await transaction(.autocommit) { try body($0) } }
        return try await GatewayTracing.transaction("read", system: "postgresql") { context in
            try await self.transaction(.autocommit) { transaction in try GatewayTracing.withContext(context) { try body(transaction) } }
        }
    }

    /// A leased connection in the caller's task: no unit-of-work thread, so a statement costs
    /// the hops of its answer only (docs/postgres.md, "Statements from the request's task").
    public func inTask<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        guard GatewayTracing.isEnabled else { return try await statementsInTask(body) }
        return try await GatewayTracing.transaction("statement", system: "postgresql") { _ in try await self.statementsInTask(body) }
    }

    func statementsInTask<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await withPooledConnection { connection in
                    try await body(PostgresTransaction(connection: connection, logger: self.logger))
                }
            } catch let error as PSQLError where attempt < Self.attempts && Self.isConflict(error) {
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * min(attempt, 10)))))
            }
        }
    }

    /// Connects once outside the pool, blocking the caller: start-up only.
    public func readAtStartup<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try atStartup(.read) { try body($0) }
    }

    /// Runs one unit of work on a connection of its own, outside the pool, blocking the
    /// caller: for start-up (migrations, marks, first reads), before anything is served, so
    /// that it needs neither the pool nor the concurrency pool's threads.
    public func atStartup<T>(_ isolation: Isolation, _ body: (PostgresTransaction) throws -> T) throws -> T {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: try connectionConfiguration(), id: 0, logger: logger
            ).wait()
        } catch {
            throw PostgresUnreachable(settings: settings, error: error)
        }
        defer { try? connection.close().wait() }
        return try Self.run(isolation, on: PostgresTransaction(connection: connection, logger: logger), body)
    }
}
