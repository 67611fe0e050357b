import Foundation
import GRDB

/// Enqueueing, usable inside the caller's own transaction (the transactional outbox): the job
/// exists if and only if the caller's change commits.
public enum JobEnqueuer {
    /// The outcome of an enqueue: the job's id, and whether an existing live job with the same
    /// unique key was returned instead of a new one.
    public struct Result: Sendable, Equatable {
        public let id: Int64
        public let state: JobState
        public let duplicate: Bool
    }

    /// Inserts the job in `db`'s current transaction.
    @discardableResult
    public static func enqueue(_ job: NewJob, in db: Database, now: Date) throws -> Result {
        if let key = job.uniqueKey,
            let row = try Row.fetchOne(
                db,
                sql: "SELECT id, state FROM jobs WHERE unique_key = ? AND state IN ('available','scheduled','running','retryable')",
                arguments: [key]
            )
        {
            return Result(id: row["id"], state: JobState(rawValue: row["state"]) ?? .available, duplicate: true)
        }
        let nowMs = now.millisecondsSince1970
        let runAt = job.runAt?.millisecondsSince1970 ?? nowMs
        let state: JobState = runAt > nowMs ? .scheduled : .available
        try db.execute(
            sql: """
                INSERT INTO jobs (queue, kind, args, state, max_attempts, priority, run_at, unique_key, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                job.queue, job.kind, String(decoding: job.args, as: UTF8.self), state.rawValue, job.maxAttempts,
                job.priority, runAt, job.uniqueKey, nowMs,
            ]
        )
        return Result(id: db.lastInsertedRowID, state: state, duplicate: false)
    }
}
