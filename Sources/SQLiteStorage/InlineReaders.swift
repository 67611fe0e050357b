public import Storage
import Foundation
import GRDB
import Synchronization

/// A few read connections of their own for lookups on the request path: a caller takes a free
/// one and runs its read right on its own thread (GRDB's synchronous access to an idle
/// connection runs inline), with no hop to the pool's reader queue and back.
///
/// They are separate from the pool's readers on purpose: a pool reader taken by an async read
/// is given back only when that read's task resumes on Swift's thread pool, so threads of that
/// pool waiting for a pool reader could wait forever. Here a caller never waits: when every
/// connection is busy it gets nothing and reads the usual async way.
final class InlineReaders: Sendable {
    private let connections: [DatabaseQueue]
    /// Indexes of the connections nobody holds.
    private let free: Mutex<[Int]>

    /// Opens `count` connections to the database file at `path` (already created, in WAL mode,
    /// by the pool). They refuse writes (`PRAGMA query_only`).
    init(path: String, count: Int) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "inline-reader"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA query_only = 1")
        }
        connections = try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) }
        free = Mutex(Array(connections.indices))
    }

    /// Runs `body` on a free connection on the calling thread, without a transaction (each
    /// statement sees the latest commit); nil when every connection is busy (`body` not run).
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let index = free.withLock({ $0.popLast() }) else { return nil }
        defer { free.withLock { $0.append(index) } }
        return try connections[index].inDatabase { db in try body(db) }
    }
}
