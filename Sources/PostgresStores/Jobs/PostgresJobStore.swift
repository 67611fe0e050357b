import Foundation
import GatewayCore
import Jobs
import PostgresNIO
import Storage
import PostgresStorage

/// The job queue on PostgreSQL. A claim is one `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP
/// LOCKED)`: instances claiming together skip each other's rows instead of waiting, and no job
/// is handed out twice. Every outcome is conditional on the lease (`locked_by`, `attempt`,
/// `running`), as on SQLite. These units run READ COMMITTED: `SKIP LOCKED` is meant for it,
/// and each statement's conditions are rechecked on the row it locks.
struct PostgresJobStore: JobQueueStoring {
    let database: GatewayPostgres

    init(database: GatewayPostgres) { self.database = database }

    static let lease = "id = $1 AND attempt = $2 AND locked_by = $3 AND state = 'running'"

    /// One error-history entry, as the SQLite store writes it.
    static let errorEntry = "jsonb_build_array(jsonb_build_object('at', $5::text, 'attempt', attempt, 'error', $6::text))"

    func finishAndClaim(
        _ resolutions: [JobResolution], queue: String, limit: Int, worker: String, now: Date, leaseUntil: Date
    ) async throws -> (finished: [FinishedJob], claimed: [ClaimedJob]) {
        if resolutions.isEmpty && limit <= 0 { return ([], []) }
        return try await database.transaction(.lockStep) { transaction in
            let finished = try Self.finish(resolutions, worker: worker, now: now, in: transaction)
            try Self.count(JobStatsMetric.counts(for: finished, at: now), in: transaction)
            let claimed = limit > 0
                ? try Self.claim(queue: queue, limit: limit, worker: worker, now: now, leaseUntil: leaseUntil, in: transaction)
                : []
            return (finished, claimed)
        }
    }

    static func claim(
        queue: String, limit: Int, worker: String, now: Date, leaseUntil: Date, in transaction: PostgresTransaction
    ) throws -> [ClaimedJob] {
        let nowMs = now.millisecondsSince1970
        let leaseMs = leaseUntil.millisecondsSince1970
        let rows = try transaction.query("""
            UPDATE jobs SET state = 'running', attempt = attempt + 1, locked_by = \(worker), lease_until = \(leaseMs), attempted_at = \(nowMs)
            WHERE id IN (
                SELECT id FROM jobs
                WHERE queue = \(queue) AND state IN ('available', 'scheduled', 'retryable') AND run_at <= \(nowMs)
                  AND NOT EXISTS (SELECT 1 FROM job_queues WHERE name = \(queue) AND paused)
                ORDER BY priority, run_at, id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED)
            RETURNING id, kind, args, attempt, max_attempts, priority, unique_key, run_at, trace_context
            """)
        var jobs = try rows.map { row in
            let (id, kind, args, attempt, maxAttempts, priority, uniqueKey, runAt, traceparent) =
                try row.decode((Int64, String, String, Int, Int, Int, String?, Int64, String?).self)
            return ClaimedJob(
                id: id, queue: queue, kind: kind, args: Data(args.utf8), attempt: attempt, maxAttempts: maxAttempts, priority: priority,
                uniqueKey: uniqueKey, scheduledAtMs: runAt, attemptedAtMs: nowMs, leaseUntilMs: leaseMs, traceparent: traceparent
            )
        }
        // RETURNING does not promise an order.
        jobs.sort { ($0.priority, $0.scheduledAtMs, $0.id) < ($1.priority, $1.scheduledAtMs, $1.id) }
        return jobs
    }

    /// Records outcomes, each only if the lease is still held; completions in one statement.
    static func finish(_ resolutions: [JobResolution], worker: String, now: Date, in transaction: PostgresTransaction) throws -> [FinishedJob] {
        guard !resolutions.isEmpty else { return [] }
        let nowMs = now.millisecondsSince1970
        let iso = ISO8601.string(from: now)
        let completions = resolutions.filter { $0.action == .complete }
        var completed = Set<LeaseKey>()
        if !completions.isEmpty {
            let ids = completions.map(\.id)
            let attempts = completions.map { Int64($0.attempt) }
            for row in try transaction.query("""
                UPDATE jobs SET state = 'completed', finalized_at = \(nowMs), lease_until = NULL
                FROM unnest(\(ids)::bigint[], \(attempts)::bigint[]) AS batch(id, attempt)
                WHERE jobs.id = batch.id AND jobs.attempt = batch.attempt AND jobs.locked_by = \(worker) AND jobs.state = 'running'
                RETURNING jobs.id, jobs.attempt
                """) {
                let (id, attempt) = try row.decode((Int64, Int).self)
                completed.insert(LeaseKey(id: id, attempt: attempt))
            }
        }
        return try resolutions.map { resolution in
            var bindings = PostgresBindings()
            bindings.append(resolution.id)
            bindings.append(resolution.attempt)
            bindings.append(worker)
            let state: JobState?
            switch resolution.action {
            case .complete:
                state = completed.contains(LeaseKey(id: resolution.id, attempt: resolution.attempt)) ? .completed : nil
            case .fail(let message, let retryAtMs):
                bindings.append(nowMs)
                bindings.append(iso)
                bindings.append(clip(message))
                bindings.append(retryAtMs)
                let row = try transaction.query(PostgresQuery(unsafeSQL: """
                    UPDATE jobs SET
                        state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
                        finalized_at = CASE WHEN attempt >= max_attempts THEN $4 ELSE NULL END,
                        run_at = CASE WHEN attempt >= max_attempts THEN run_at ELSE $7 END,
                        lease_until = NULL,
                        errors = errors || \(errorEntry)
                    WHERE \(lease)
                    RETURNING state
                    """, binds: bindings)).first
                state = try row.flatMap { JobState(rawValue: try $0.decode(String.self)) }
            case .cancel(let reason):
                bindings.append(nowMs)
                bindings.append(iso)
                bindings.append(clip(reason))
                let changed = try transaction.execute(PostgresQuery(unsafeSQL: """
                    UPDATE jobs SET state = 'cancelled', finalized_at = $4, lease_until = NULL, errors = errors || \(errorEntry)
                    WHERE \(lease)
                    """, binds: bindings))
                state = changed == 1 ? .cancelled : nil
            case .snooze(let untilMs):
                bindings.append(untilMs)
                let changed = try transaction.execute(PostgresQuery(unsafeSQL: """
                    UPDATE jobs SET state = 'scheduled', run_at = $4, attempt = attempt - 1, lease_until = NULL WHERE \(lease)
                    """, binds: bindings))
                state = changed == 1 ? .scheduled : nil
            case .release:
                let changed = try transaction.execute(PostgresQuery(unsafeSQL: """
                    UPDATE jobs SET state = 'available', attempt = attempt - 1, lease_until = NULL WHERE \(lease)
                    """, binds: bindings))
                state = changed == 1 ? .available : nil
            }
            return FinishedJob(resolution: resolution, state: state)
        }
    }

    /// Error messages are kept, but bounded.
    static func clip(_ message: String) -> String {
        message.count <= 2000 ? message : String(message.prefix(2000)) + "…"
    }

    func renewLeases(_ leases: [LeaseKey], worker: String, until: Date) async throws -> Set<Int64> {
        guard !leases.isEmpty else { return [] }
        let untilMs = until.millisecondsSince1970
        let ids = leases.map(\.id)
        let attempts = leases.map { Int64($0.attempt) }
        return try await database.transaction(.lockStep) { transaction in
            Set(try transaction.query("""
                UPDATE jobs SET lease_until = \(untilMs)
                FROM unnest(\(ids)::bigint[], \(attempts)::bigint[]) AS held(id, attempt)
                WHERE jobs.id = held.id AND jobs.attempt = held.attempt AND jobs.locked_by = \(worker) AND jobs.state = 'running'
                RETURNING jobs.id
                """).map { try $0.decode(Int64.self) })
        }
    }

    func reapExpiredLeases(now: Date) async throws -> [ReapedJob] {
        let nowMs = now.millisecondsSince1970
        let iso = ISO8601.string(from: now)
        return try await database.transaction(.lockStep) { transaction in
            try transaction.query("""
                UPDATE jobs SET
                    state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
                    finalized_at = CASE WHEN attempt >= max_attempts THEN \(nowMs) ELSE NULL END,
                    lease_until = NULL,
                    errors = errors || jsonb_build_array(jsonb_build_object('at', \(iso)::text, 'attempt', attempt,
                        'error', 'lease expired: worker ' || COALESCE(locked_by, '?') || ' stopped renewing it (crash, kill or stall)'))
                WHERE state = 'running' AND lease_until < \(nowMs)
                RETURNING id, queue, kind, state
                """).map { row in
                let (id, queue, kind, state) = try row.decode((Int64, String, String, String).self)
                return ReapedJob(id: id, queue: queue, kind: kind, state: JobState(rawValue: state) ?? .retryable)
            }
        }
    }

    func prune(finishedBefore: Date, discardedBefore: Date) async throws -> Int {
        var total = 0
        for (states, before) in [(["completed", "cancelled"], finishedBefore), (["discarded"], discardedBefore)] {
            // Small batches, each its own transaction, so pruning never holds locks long.
            while true {
                let cutoff = before.millisecondsSince1970
                let deleted = try await database.transaction(.lockStep) { transaction in
                    try transaction.execute("""
                        DELETE FROM jobs WHERE id IN (
                            SELECT id FROM jobs WHERE state = ANY(\(states)) AND finalized_at < \(cutoff) LIMIT 2000)
                        """)
                }
                total += deleted
                if deleted < 2000 { break }
            }
        }
        return total
    }

    func readiness(now: Date) async throws -> [String: (ready: Int, oldestDueMs: Int64?)] {
        let nowMs = now.millisecondsSince1970
        let rows = try await database.transaction(.read) { transaction in
            try transaction.query("""
                SELECT queue, COUNT(*), MIN(run_at) FROM jobs
                WHERE state IN ('available', 'scheduled', 'retryable') AND run_at <= \(nowMs)
                GROUP BY queue
                """).map { try $0.decode((String, Int, Int64?).self) }
        }
        var result: [String: (ready: Int, oldestDueMs: Int64?)] = [:]
        for (queue, ready, oldest) in rows { result[queue] = (ready, oldest) }
        return result
    }
}

// MARK: Queue settings and instances

extension PostgresJobStore {
    /// Adds `counts` to `job_stats` in one statement, in the transaction recording the outcomes.
    /// The rows come sorted by queue and metric, so instances recording together lock them in
    /// one order and never deadlock.
    static func count(_ counts: [JobStatsCount], in transaction: PostgresTransaction) throws {
        guard !counts.isEmpty else { return }
        try transaction.execute("""
            INSERT INTO job_stats (minute_ms, queue, metric, count)
            SELECT * FROM unnest(\(counts.map(\.minuteMs))::bigint[], \(counts.map(\.queue))::text[],
                \(counts.map(\.metric))::text[], \(counts.map { Int64($0.count) })::bigint[])
            ON CONFLICT (minute_ms, queue, metric) DO UPDATE SET count = job_stats.count + excluded.count
            """)
    }

    func rollUpStats() async throws {
        try await database.transaction(.lockStep) { transaction in
            // Two instances rolling up at once: the second waits on the rows the first deletes,
            // then skips them, so each enqueue is counted once.
            try transaction.execute("""
                WITH moved AS (DELETE FROM job_stats_enqueued RETURNING minute_ms, queue)
                INSERT INTO job_stats (minute_ms, queue, metric, count)
                SELECT minute_ms, queue, 'enqueued', COUNT(*) FROM moved GROUP BY minute_ms, queue ORDER BY queue
                ON CONFLICT (minute_ms, queue, metric) DO UPDATE SET count = job_stats.count + excluded.count
                """)
        }
    }

    func pruneStats(before: Date) async throws -> Int {
        let cutoff = before.millisecondsSince1970
        return try await database.transaction(.lockStep) { transaction in
            try transaction.execute("DELETE FROM job_stats WHERE minute_ms < \(cutoff)")
        }
    }

    func queueConcurrency() async throws -> [String: Int] {
        let rows = try await database.transaction(.read) { transaction in
            try transaction.query("SELECT name, concurrency FROM job_queues WHERE concurrency IS NOT NULL")
                .map { try $0.decode((String, Int).self) }
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    func heartbeat(_ beat: InstanceHeartbeat, pruneBefore: Date) async throws {
        let started = beat.startedAt.millisecondsSince1970
        let at = beat.at.millisecondsSince1970
        let cutoff = pruneBefore.millisecondsSince1970
        let queues = beat.queuesJSON
        try await database.transaction(.lockStep) { transaction in
            try transaction.execute("""
                INSERT INTO job_instances (id, host, pid, version, started_at, heartbeat_at, running, queues)
                VALUES (\(beat.id), \(beat.host), \(beat.pid), \(beat.version), \(started), \(at), \(beat.running), \(queues))
                ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, running = excluded.running,
                    queues = excluded.queues, version = excluded.version
                """)
            try transaction.execute("DELETE FROM job_instances WHERE heartbeat_at < \(cutoff)")
        }
    }

    func removeInstance(id: String) async throws {
        try await database.transaction(.lockStep) { transaction in
            try transaction.execute("DELETE FROM job_instances WHERE id = \(id)")
        }
    }
}
