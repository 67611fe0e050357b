public import Storage
import Logging
public import PostgresNIO
import Synchronization

/// Leadership among gateway instances on one database, held as a session-level advisory lock
/// (`pg_try_advisory_lock`) on a connection of its own. The instance whose session holds the
/// lock leads; when that instance dies (or its connection breaks), PostgreSQL releases the lock
/// with the session, and the next instance to try takes it over. Used so that one instance
/// ticks the recurring schedules.
public final class PostgresLeadership: Sendable {
    let database: GatewayPostgres
    /// The lock's key: the same number in every instance.
    public let key: Int64
    /// The session the lock is tried and held on, and whether it holds the lock.
    private let session = Mutex<(connection: PostgresConnection, leading: Bool)?>(nil)
    /// One attempt at a time from this instance.
    private let trying = Mutex(false)

    public init(database: GatewayPostgres, key: Int64) {
        self.database = database
        self.key = key
    }

    /// Whether this instance leads now: true while its session holds the lock; otherwise one
    /// attempt to take it, on the same session (a lock another session holds is not waited for).
    /// A broken session is replaced at the next attempt.
    public func isLeader() async -> Bool {
        if let current = session.withLock({ $0 }), current.leading, !current.connection.isClosed { return true }
        guard trying.withLock({ busy in
            if busy { return false }
            busy = true
            return true
        }) else { return false }
        defer { trying.withLock { $0 = false } }
        do {
            var connection = session.withLock { $0?.connection }
            if connection == nil || connection!.isClosed {
                connection = try await database.dedicatedConnection()
            }
            guard let connection else { return false }
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: database.logger).collect()
            let leading = try rows.first?.decode(Bool.self) == true
            session.withLock { $0 = (connection, leading) }
            return leading
        } catch {
            let broken = session.withLock { current in
                defer { current = nil }
                return current?.connection
            }
            try? await broken?.close()
            return false
        }
    }

    /// Gives up leadership (closing the session releases the lock).
    public func resign() async {
        let held = session.withLock { current in
            defer { current = nil }
            return current?.connection
        }
        guard let held else { return }
        await database.closeWithin(GatewayPostgres.closingWait, "the leadership session", { try? await held.close() })
    }
}

extension GatewayPostgres {
    /// Runs `body` while this instance holds the session-level advisory lock `key`, waiting
    /// for any other instance that holds it: work that many instances starting together must
    /// do one after another (seeding a demo database). The lock lives on a connection of its
    /// own and goes with it, also when this process dies.
    public func exclusively<T: Sendable>(_ key: Int64, _ body: () async throws -> T) async throws -> T {
        let connection = try await dedicatedConnection()
        do {
            try await connection.query("SELECT pg_advisory_lock(\(key))", logger: logger)
            let result = try await body()
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
