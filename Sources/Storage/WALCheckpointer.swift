import Foundation
import GRDB
import Synchronization

/// Copies the write-ahead log back into the database file on a thread of its own, so that no
/// request waits for it.
///
/// SQLite's default is to checkpoint inside the commit that pushes the log past 1,000 pages,
/// on the writer: that commit then copies the log and flushes the file to disk twice while
/// every other write queues behind it. Where a flush is slow (cloud block storage, a busy VM:
/// 5–50 ms a flush) that is the one request in a hundred that takes 100–200 ms at
/// registration opening, and it caps how many jobs a second the queue can finish. With
/// ``GatewayDatabase``'s connections set to `wal_autocheckpoint = 0`, this thread runs a
/// `PASSIVE` checkpoint every `interval` on a connection of its own instead: it waits for no
/// reader or writer and none waits for it, and the flushes happen here.
///
/// The log is reset to its start by the next writer once everything in it has been copied, so
/// it stays a few megabytes; `journal_size_limit` trims the file after a burst.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    /// Opens the checkpointer's connection to the (already created) database file at `path`.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "wal-checkpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Starts the checkpointing thread; it runs until ``stop()``.
    func start(interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let wait = Double(seconds) + Double(attoseconds) / 1e18
        let thread = Thread { [self] in
            while !stopped.load(ordering: .acquiring) {
                _ = wake.wait(timeout: .now() + wait)
                checkpoint()
            }
        }
        thread.name = "wal-checkpointer"
        thread.start()
    }

    /// One `PASSIVE` checkpoint: copies every frame no reader still needs. Failures (a
    /// `SQLITE_BUSY` from another process's checkpoint, a full disk) are left for the next
    /// round; the log only grows meanwhile.
    func checkpoint() {
        _ = try? connection.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }

    /// Ends the thread after one last checkpoint.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
    }
}
