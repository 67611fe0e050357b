public import Storage
public import Contracts
import Foundation
public import Logging
import NIOCore
import NIOPosix
import NIOSSL
public import PostgresNIO
import Synchronization

/// The gateway's PostgreSQL database: a pool of connections (postgres-nio's `PostgresClient`)
/// and the thread pool its units of work run on. Many gateway instances may share one database.
///
/// Store methods are synchronous, as on SQLite, so that services don't change with the backend.
/// A unit of work therefore runs on a thread of this pool (which may block), holding one
/// connection, and its statements wait for their results there; event loops and the Swift
/// concurrency pool never block.
///
/// Write units run `SERIALIZABLE`: PostgreSQL then guarantees what SQLite's single writer
/// does, that concurrent units behave as if run one after another, on every instance. A unit
/// the server aborts for a serialization conflict or a deadlock is run again from the start
/// (with a short random pause), so bodies must not do anything outside the transaction that
/// can't be repeated. Reads run `REPEATABLE READ READ ONLY`: one consistent snapshot.
public final class GatewayPostgres: Sendable {
    public let settings: PostgresSettings
    public let client: PostgresClient
    let threads: NIOThreadPool
    let logger: Logger
    private let running = Mutex<Task<Void, Never>?>(nil)
    /// Connections opened outside the pool (``dedicatedConnection()``), closed at shutdown; nil
    /// once shutdown has begun (no new one is kept then).
    private let dedicated = Mutex<[PostgresConnection]?>([])

    /// How many times a unit of work is tried when the server keeps aborting it for conflicts.
    static let attempts = 20

    /// A pool of up to `connections` connections to `settings`' database; nothing connects
    /// until ``start()`` and the first unit of work.
    public init(settings: PostgresSettings, connections: Int = 16, logger: Logger) {
        self.settings = settings
        self.logger = logger
        var configuration: PostgresClient.Configuration
        if let socketDirectory = settings.socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(settings.port)", username: settings.user, password: settings.password,
                database: settings.database
            )
        } else {
            configuration = PostgresClient.Configuration(
                host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database,
                tls: Self.clientTLS(settings)
            )
        }
        configuration.options.maximumConnections = connections
        configuration.options.additionalStartupParameters = [("application_name", settings.applicationName)]
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        threads = NIOThreadPool(numberOfThreads: connections)
    }

    /// libpq's `sslmode`: no TLS (nil), or TLS with this certificate check, insisted on or not;
    /// a verifying mode trusts `rootCertificateFile` when one is named, else the system's roots.
    static func tls(_ mode: PostgresSettings.TLSMode, rootCertificateFile: String? = nil) -> (configuration: TLSConfiguration, required: Bool)? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let rootCertificateFile { configuration.trustRoots = .file(rootCertificateFile) }
        switch mode {
        case .disable:
            return nil
        case .allow, .prefer:
            configuration.certificateVerification = .none
            return (configuration, false)
        case .require:
            configuration.certificateVerification = .none
            return (configuration, true)
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
            return (configuration, true)
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
            return (configuration, true)
        }
    }

    static func clientTLS(_ settings: PostgresSettings) -> PostgresClient.Configuration.TLS {
        guard let (configuration, required) = tls(settings.tlsMode, rootCertificateFile: settings.rootCertificateFile) else { return .disable }
        return required ? .require(configuration) : .prefer(configuration)
    }

    static func connectionTLS(_ settings: PostgresSettings) throws -> PostgresConnection.Configuration.TLS {
        guard let (configuration, required) = tls(settings.tlsMode, rootCertificateFile: settings.rootCertificateFile) else { return .disable }
        let context = try NIOSSLContext(configuration: configuration)
        return required ? .require(context) : .prefer(context)
    }

    /// Starts the connection pool and the unit-of-work threads.
    public func start() {
        running.withLock { task in
            guard task == nil else { return }
            threads.start()
            let client = self.client
            task = Task { await client.run() }
        }
    }

    /// Closes every connection and stops the threads; units of work still running fail.
    public func shutdown() async {
        let task = running.withLock { task in
            defer { task = nil }
            return task
        }
        let sessions = dedicated.withLock { sessions in
            defer { sessions = nil }
            return sessions ?? []
        }
        for session in sessions where !session.isClosed {
            await closeWithin(Self.closingWait, "a session", { try? await session.close() })
        }
        guard let task else { return }
        task.cancel()
        await closeWithin(Self.closingWait, "the connection pool", { await task.value })
        let threads = self.threads
        await closeWithin(Self.closingWait, "the unit-of-work threads", { try? await threads.shutdownGracefully() })
    }

    /// How long shutdown waits for each of its steps (sessions, the pool, the threads) before
    /// it goes on without it: a process that is stopping must stop.
    static let closingWait: Duration = .seconds(10)

    /// Runs one step of closing, waiting for it at most `limit`, and says so when it did not end.
    func closeWithin(_ limit: Duration, _ what: String, _ step: @escaping @Sendable () async -> Void) async {
        guard await BoundedWait.finishes(within: limit, step) else {
            logger.warning("PostgreSQL: \(what) did not close within \(limit); going on without waiting for it")
            return
        }
    }

    /// How a unit of work's transaction begins.
    public enum Isolation: String, Sendable {
        case write = "BEGIN ISOLATION LEVEL SERIALIZABLE"
        case read = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        /// READ COMMITTED, for units that take a lock first and must then see what the lock's
        /// previous holder committed (a snapshot taken before the lock would not).
        case lockStep = "BEGIN ISOLATION LEVEL READ COMMITTED"
        /// No transaction: each statement is its own (``TransactionRunner/autocommit(_:)``).
        case autocommit = ""
    }

    /// Runs `body` in one transaction on a leased connection and a pool thread, again from the
    /// start when the server aborts it for a conflict.
    ///
    /// With `turn`, the connection holds that session advisory lock from before BEGIN until
    /// after COMMIT or ROLLBACK, so the lock's units run one after another, each with a snapshot
    /// taken after the previous one committed (a lock taken inside the transaction would come
    /// after its snapshot).
    public func transaction<T: Sendable>(
        _ isolation: Isolation, inTurn turn: Int64? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await withPooledConnection { connection in
                    try await self.threads.runIfActive {
                        let transaction = PostgresTransaction(connection: connection, logger: self.logger)
                        guard let turn else { return try Self.run(isolation, on: transaction, body) }
                        try transaction.execute("SELECT pg_advisory_lock(\(turn))")
                        defer { _ = try? transaction.execute("SELECT pg_advisory_unlock(\(turn))") }
                        return try Self.run(isolation, on: transaction, body)
                    }
                }
            } catch let error as PSQLError where attempt < Self.attempts && Self.isConflict(error) {
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * min(attempt, 10)))))
            }
        }
    }

    /// How long a unit of work waits for a connection of the pool before asking whether the
    /// server can be reached at all.
    ///
    /// postgres-nio keeps a request waiting while it can't connect, until its circuit breaker
    /// trips a minute after the first failed attempt (then with an error of its own), so with
    /// the server down every request hung for a minute and then answered 500. After this wait
    /// the unit checks the server's address: when nothing accepts a connection there, it throws
    /// ``PostgresUnavailable`` (a 503 with `Retry-After`). A server that answers means the pool
    /// is only busy, and the unit goes on waiting, up to ``busyPoolWait`` in all: a burst (or a
    /// loaded test machine) must not turn into 503s while PostgreSQL is up.
    static let connectionWait: Duration = .seconds(5)
    /// The longest a unit waits for a connection while the server is reachable.
    static let busyPoolWait: Duration = .seconds(60)

    /// Runs `body` on a connection of the pool, waiting for one as ``connectionWait`` says.
    /// Once `body` has begun, it runs to its end whatever the time.
    func withPooledConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let lease = LeaseState()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                do {
                    return try await self.client.withConnection { connection in
                        // Too late: the caller was already told the database is unavailable.
                        guard lease.begin() else { throw CancellationError() }
                        return try await body(connection)
                    }
                } catch where !lease.began {
                    throw PostgresUnavailable(reason: PostgresUnreachable.reason(error))
                }
            }
            group.addTask {
                let started = ContinuousClock.now
                while true {
                    try? await Task.sleep(for: Self.connectionWait)
                    if lease.began || Task.isCancelled { return nil }
                    let waited = started.duration(to: .now)
                    let reachable = await self.serverAcceptsConnections()
                    if reachable, waited < Self.busyPoolWait { continue }
                    guard lease.giveUp() else { return nil }
                    throw PostgresUnavailable(
                        reason: reachable ? "no free connection within \(waited)" : "nothing accepts connections at \(self.settings)"
                    )
                }
            }
            while let result = try await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }

    /// Whether something accepts a connection at the server's address within a second (a
    /// connection opened and closed at once, no PostgreSQL handshake).
    func serverAcceptsConnections() async -> Bool {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.seconds(1))
        do {
            let channel: any Channel
            if let directory = settings.socketDirectory {
                channel = try await bootstrap.connect(unixDomainSocketPath: "\(directory)/.s.PGSQL.\(settings.port)").get()
            } else {
                channel = try await bootstrap.connect(host: settings.host, port: settings.port).get()
            }
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }

    /// BEGIN, the body, COMMIT; ROLLBACK when anything throws.
    static func run<T>(_ isolation: Isolation, on transaction: PostgresTransaction, _ body: (PostgresTransaction) throws -> T) throws -> T {
        if isolation == .autocommit { return try body(transaction) }
        try transaction.execute(PostgresQuery(unsafeSQL: isolation.rawValue))
        let result: T
        do {
            result = try body(transaction)
        } catch {
            _ = try? transaction.execute("ROLLBACK")
            throw error
        }
        do {
            try transaction.execute("COMMIT")
        } catch {
            _ = try? transaction.execute("ROLLBACK")
            throw error
        }
        return result
    }

    /// A serialization failure or a deadlock: the server aborted the unit so another could go
    /// on, and running it again is the documented answer.
    static func isConflict(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }
}


/// Whether a unit of work got its connection in time (``GatewayPostgres/withPooledConnection(_:)``):
/// the lease and the timer race to settle it once.
final class LeaseState: Sendable {
    /// 0 waiting, 1 the body began, 2 given up.
    private let state = Atomic<Int>(0)

    /// The connection came; false when the caller had given up already.
    func begin() -> Bool { state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged }
    /// The wait is over; false when the body had begun.
    func giveUp() -> Bool { state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged }
    var began: Bool { state.load(ordering: .acquiring) == 1 }
}

/// No connection of the pool could be had in time: the server is unreachable (down,
/// restarting, the network) or every connection stayed busy. A 503 with `Retry-After`.
public struct PostgresUnavailable: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "PostgreSQL is unavailable: \(reason)" }
}

/// The database's connections are closing: ``GatewayPostgres/shutdown()`` has begun.
public struct PostgresShutDown: Error, CustomStringConvertible {
    public var description: String { "the PostgreSQL connections are shut down" }
}

/// The database could not be reached or refused this instance: which one (never its password)
/// and why, in words an operator can act on.
public struct PostgresUnreachable: Error, CustomStringConvertible {
    public let description: String

    init(settings: PostgresSettings, error: any Error) {
        description = "cannot connect to PostgreSQL at \(settings): \(Self.reason(error))"
    }

    /// The server's message, or the network's error; not `PSQLError`'s own description, which
    /// hides everything.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return String(describing: underlying) }
        return "\(error.code)"
    }
}

/// Connections outside the pool.
extension GatewayPostgres {
    /// The settings for a connection of its own, outside the pool (start-up reads, and the
    /// session that holds an advisory lock for as long as it lives).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketDirectory = settings.socketDirectory {
            return PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(settings.port)", username: settings.user, password: settings.password,
                database: settings.database
            )
        }
        return PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database,
            tls: try Self.connectionTLS(settings)
        )
    }

    /// A connection of its own, outside the pool, for a session that must outlive any one unit
    /// of work (an advisory lock's). The caller may close it; ``shutdown()`` closes it otherwise.
    public func dedicatedConnection() async throws -> PostgresConnection {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: try connectionConfiguration(), id: Int.random(in: 1...Int.max),
            logger: logger
        )
        let kept = dedicated.withLock { sessions -> Bool in
            guard sessions != nil else { return false }
            sessions!.removeAll { $0.isClosed }
            sessions!.append(connection)
            return true
        }
        guard kept else {
            // Shutdown began while this one was connecting.
            try? await connection.close()
            throw PostgresShutDown()
        }
        return connection
    }

    public func savepoint<T>(in transaction: any StoreTransaction, _ body: () throws -> T) throws -> T {
        try transaction.postgres().savepoint(body)
    }
}
