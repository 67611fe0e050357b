import Contracts
import Foundation
import GRDB
import Jobs
import Storage
import SQLiteStorage

/// Enqueueing on SQLite, inside the caller's own transaction (the transactional outbox).
extension JobEnqueuer {
    static let insertSQL = """
        INSERT INTO jobs (queue, kind, args, state, max_attempts, priority, run_at, unique_key, created_at, trace_context)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'running', 'retryable')
        DO NOTHING
        """
    /// The enqueue's row for the stats (rolled up into `job_stats` by the workers).
    static let countSQL = "INSERT INTO job_stats_enqueued (minute_ms, queue) VALUES (?, ?)"
    static let existingSQL = """
        SELECT id, state FROM jobs
        WHERE unique_key = ? AND state IN ('available', 'scheduled', 'running', 'retryable')
        """

    /// Inserts the job in `db`'s current transaction. A live job (available, scheduled, running
    /// or retryable) with the same unique key is returned instead of inserting a second one;
    /// the partial unique index `jobs_unique_live` makes that hold even between processes.
    /// `signals`' listeners (this process's workers) are woken when the transaction commits.
    @discardableResult
    static func enqueue(_ job: NewJob, in db: Database, now: Date, signals: JobSignals?) throws -> Result {
        guard !job.kind.isEmpty, !job.queue.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "a job needs a kind and a queue")
        }
        let nowMs = now.millisecondsSince1970
        let runAt = job.runAt?.millisecondsSince1970 ?? nowMs
        let state: JobState = runAt > nowMs ? .scheduled : .available
        try db.cachedStatement(sql: insertSQL).execute(arguments: [
            job.queue, job.kind, String(decoding: job.args, as: UTF8.self), state.rawValue, job.maxAttempts,
            job.priority, runAt, job.uniqueKey, nowMs, job.traceparent,
        ])
        if db.changesCount == 0, let key = job.uniqueKey,
            let row = try Row.fetchOne(db.cachedStatement(sql: existingSQL), arguments: [key])
        {
            return Result(id: row["id"], state: JobState(rawValue: row["state"]) ?? .available, duplicate: true)
        }
        let id = db.lastInsertedRowID
        try db.cachedStatement(sql: countSQL).execute(arguments: [JobStatsCount.minute(of: now), job.queue])
        if state == .available { signals?.enqueued(queue: job.queue, in: db) }
        return Result(id: id, state: state, duplicate: false)
    }
}

/// ``JobEnqueuing`` on the SQLite jobs table (``JobEnqueuer``).
struct SQLiteJobEnqueuer: JobEnqueuing {
    /// Wakes this process's workers when an enqueue commits.
    let signals: JobSignals

    init(signals: JobSignals) { self.signals = signals }

    @discardableResult
    func enqueue(_ job: NewJob, in transaction: any StoreTransaction, now: Date) throws -> JobEnqueuer.Result {
        try JobEnqueuer.enqueue(job, in: transaction.sqlite(), now: now, signals: signals)
    }
}
