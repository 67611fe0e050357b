import Contracts
import Foundation
import GatewayCore
import Jobs
import PostgresNIO
import Storage
import PostgresStorage

/// ``JobEnqueuing`` on PostgreSQL, inside the caller's transaction (the transactional outbox):
/// the job exists if and only if the caller's change commits. The partial unique index
/// `jobs_unique_live` keeps one live job per unique key across every instance. A
/// `NOTIFY gateway_jobs` sent in the same transaction rings every instance's workers when it
/// commits (``PostgresJobDoorbell``).
struct PostgresJobEnqueuer: JobEnqueuing {
    init() {}

    /// The channel every instance listens on; the payload is the queue's name.
    static let channel = "gateway_jobs"

    @discardableResult
    func enqueue(_ job: NewJob, in transaction: any StoreTransaction, now: Date) throws -> JobEnqueuer.Result {
        try Self.enqueue(job, in: transaction.postgres(), now: now)
    }

    /// Inserts the job, or finds the live job that holds its unique key. Between the two
    /// statements that live job may finish (a worker on another connection completes it): at
    /// READ COMMITTED the insert saw it and the lookup no longer does, and the key is free
    /// again, so the insert is tried once more, as a caller a moment later would have.
    static func enqueue(_ job: NewJob, in transaction: PostgresTransaction, now: Date) throws -> JobEnqueuer.Result {
        for _ in 1..<attempts {
            if let result = try insertOrFind(job, in: transaction, now: now) { return result }
        }
        guard let result = try insertOrFind(job, in: transaction, now: now) else {
            throw InvalidJob(reason: "the job was neither inserted nor found under its unique key")
        }
        return result
    }

    /// Tries of ``enqueue(_:in:now:)`` before it gives up: each miss needs a live job to finish
    /// within two statements, so a third in a row means something else is wrong.
    static let attempts = 3

    /// The job inserted, or the live job holding its key; nil when neither (the live job
    /// finished between the two statements).
    static func insertOrFind(_ job: NewJob, in transaction: PostgresTransaction, now: Date) throws -> JobEnqueuer.Result? {
        guard !job.kind.isEmpty, !job.queue.isEmpty else { throw InvalidJob(reason: "a job needs a kind and a queue") }
        let nowMs = now.millisecondsSince1970
        let runAt = job.runAt?.millisecondsSince1970 ?? nowMs
        let state: JobState = runAt > nowMs ? .scheduled : .available
        let args = String(decoding: job.args, as: UTF8.self)
        // The stats' enqueue row goes in the same statement (no second round trip), only when
        // the job was inserted.
        let minute = JobStatsCount.minute(of: now)
        let inserted = try transaction.query("""
            WITH inserted AS (
                INSERT INTO jobs (queue, kind, args, state, max_attempts, priority, run_at, unique_key, created_at, trace_context)
                VALUES (
                    \(job.queue), \(job.kind), \(args), \(state.rawValue), \(job.maxAttempts), \(job.priority), \(runAt), \(job.uniqueKey),
                    \(nowMs), \(job.traceparent)
                )
                ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'running', 'retryable')
                DO NOTHING
                RETURNING id, queue
            ), counted AS (
                INSERT INTO job_stats_enqueued (minute_ms, queue) SELECT \(minute), queue FROM inserted
            )
            SELECT id FROM inserted
            """)
        if let row = inserted.first {
            if state == .available { try transaction.execute("SELECT pg_notify(\(Self.channel), \(job.queue))") }
            return JobEnqueuer.Result(id: try row.decode(Int64.self), state: state, duplicate: false)
        }
        guard let key = job.uniqueKey else { throw InvalidJob(reason: "a job without a unique key was not inserted") }
        guard let existing = try transaction.query("""
            SELECT id, state FROM jobs WHERE unique_key = \(key) AND state IN ('available', 'scheduled', 'running', 'retryable')
            """).first
        else { return nil }
        let (id, existingState) = try existing.decode((Int64, String).self)
        return JobEnqueuer.Result(id: id, state: JobState(rawValue: existingState) ?? .available, duplicate: true)
    }
}

/// A job that could not be enqueued: a programming error, not an operator's.
struct InvalidJob: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
