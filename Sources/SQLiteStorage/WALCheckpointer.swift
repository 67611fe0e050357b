public import Storage
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
/// A passive round alone does not let the log start over under a steady stream of writes and
/// reads: a writer starts the log over only when every frame in it has been copied and no
/// reader still reads from it, and with writes appending frames and readers coming and going
/// that moment never comes. The log then grows without end (465 MB in a few seconds of the
/// jobs benchmark), and every read searches a longer log index. So when a passive round
/// leaves more than `restartFrames` frames in the log, a `RESTART` round follows: it holds
/// writers back while it copies the few frames the passive round missed, then waits for
/// readers to leave the log, so the next writer starts it over. Writers wait for that short
/// remainder, not for the whole copy (the pattern Litestream uses). `journal_size_limit`
/// trims the file after a burst.
final class WALCheckpointer: Sendable {
    /// The log length (in frames, one page each) past which a round ends with a `RESTART`:
    /// 4,096 frames, 16 MiB with 4 KiB pages.
    static let defaultRestartFrames = 4096

    private let connection: DatabaseQueue
    private let restartFrames: Int
    private let stopped = Atomic<Bool>(false)
    /// Rounds run so far (for tests and diagnostics).
    let rounds = Atomic<Int>(0)
    private let wake = DispatchSemaphore(value: 0)

    /// Opens the checkpointer's connection to the (already created) database file at `path`.
    init(path: String, restartFrames: Int = defaultRestartFrames) throws {
        self.restartFrames = restartFrames
        var configuration = Configuration()
        // Only `RESTART` waits, for the writer and then for readers, and writers wait while it
        // does: a tenth of a second at most, then the round gives up until the next.
        configuration.busyMode = .timeout(0.1)
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

    /// One round: a `PASSIVE` checkpoint, which copies every frame no reader still needs, then
    /// a `RESTART` if the log is still longer than `restartFrames`. Failures (a `SQLITE_BUSY`
    /// from another process's checkpoint or a reader that stays, a full disk) are left for the
    /// next round; the log only grows meanwhile.
    func checkpoint() {
        try? connection.inDatabase { db in
            let (frames, _) = try db.checkpoint(.passive)
            if frames > restartFrames { try db.checkpoint(.restart) }
        }
        rounds.add(1, ordering: .releasing)
    }

    /// Ends the thread after one last checkpoint.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
    }
}
