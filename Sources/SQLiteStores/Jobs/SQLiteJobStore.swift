import Foundation
import GRDB
import GatewayCore
import Jobs
import Storage
import SQLiteStorage

/// The job queue on the service's SQLite file. Claims are one `UPDATE ... RETURNING`
/// statement; every outcome is conditional on the lease (`locked_by`, `attempt`, `running`).
struct SQLiteJobStore: JobQueueStoring {
    let database: GatewayDatabase

    init(database: GatewayDatabase) { self.database = database }

    static let claimSQL = """
        UPDATE jobs SET state = 'running', attempt = attempt + 1, locked_by = ?1, lease_until = ?2, attempted_at = ?3
        WHERE id IN (
            SELECT id FROM jobs
            WHERE queue = ?4 AND state IN ('available', 'scheduled', 'retryable') AND run_at <= ?3
            ORDER BY priority, run_at, id
            LIMIT ?5)
          AND NOT EXISTS (SELECT 1 FROM job_queues WHERE name = ?4 AND paused = 1)
        RETURNING id, kind, args, attempt, max_attempts, priority, unique_key, run_at, trace_context
        """
    /// Positions in ``claimSQL``'s `RETURNING` list, read by index because a lookup by name
    /// lowercases each name on every row.
    enum ClaimColumn {
        static let id = 0, kind = 1, args = 2, attempt = 3, maxAttempts = 4, priority = 5, uniqueKey = 6, runAt = 7, traceContext = 8
    }
    static let lease = "id = ?1 AND attempt = ?2 AND locked_by = ?3 AND state = 'running'"
    static let failSQL = """
        UPDATE jobs SET
            state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
            finalized_at = CASE WHEN attempt >= max_attempts THEN ?4 ELSE NULL END,
            run_at = CASE WHEN attempt >= max_attempts THEN run_at ELSE ?5 END,
            lease_until = NULL,
            errors = json_insert(errors, '$[#]', json_object('at', ?6, 'attempt', attempt, 'error', ?7))
        WHERE \(lease)
        RETURNING state
        """
    static let cancelSQL = """
        UPDATE jobs SET state = 'cancelled', finalized_at = ?4, lease_until = NULL,
            errors = json_insert(errors, '$[#]', json_object('at', ?5, 'attempt', attempt, 'error', ?6))
        WHERE \(lease)
        """
    static let snoozeSQL = "UPDATE jobs SET state = 'scheduled', run_at = ?4, attempt = attempt - 1, lease_until = NULL WHERE \(lease)"
    static let releaseSQL = "UPDATE jobs SET state = 'available', attempt = attempt - 1, lease_until = NULL WHERE \(lease)"
    static let renewSQL = "UPDATE jobs SET lease_until = ?4 WHERE \(lease)"

    func finishAndClaim(
        _ resolutions: [JobResolution], queue: String, limit: Int, worker: String, now: Date, leaseUntil: Date
    ) async throws -> (finished: [FinishedJob], claimed: [ClaimedJob]) {
        if resolutions.isEmpty && limit <= 0 { return ([], []) }
        return try await database.writeSQLite { db in
            let finished = try Self.finish(resolutions, worker: worker, now: now, in: db)
            try Self.count(JobStatsMetric.counts(for: finished, at: now), in: db)
            let claimed = limit > 0
                ? try Self.claim(queue: queue, limit: limit, worker: worker, now: now, leaseUntil: leaseUntil, in: db)
                : []
            return (finished, claimed)
        }
    }

    /// The claim: one statement, in `db`'s transaction.
    static func claim(
        queue: String, limit: Int, worker: String, now: Date, leaseUntil: Date, in db: Database
    ) throws -> [ClaimedJob] {
        let nowMs = now.millisecondsSince1970
        let leaseMs = leaseUntil.millisecondsSince1970
        let statement = try db.cachedStatement(sql: claimSQL)
        let rows = try Row.fetchAll(statement, arguments: [worker, leaseMs, nowMs, queue, limit])
        var jobs = rows.map { row in
            ClaimedJob(
                id: row[ClaimColumn.id], queue: queue, kind: row[ClaimColumn.kind], args: Data((row[ClaimColumn.args] as String).utf8),
                attempt: row[ClaimColumn.attempt], maxAttempts: row[ClaimColumn.maxAttempts], priority: row[ClaimColumn.priority],
                uniqueKey: row[ClaimColumn.uniqueKey], scheduledAtMs: row[ClaimColumn.runAt],
                attemptedAtMs: nowMs, leaseUntilMs: leaseMs, traceparent: row[ClaimColumn.traceContext]
            )
        }
        // RETURNING does not promise an order.
        jobs.sort { ($0.priority, $0.scheduledAtMs, $0.id) < ($1.priority, $1.scheduledAtMs, $1.id) }
        return jobs
    }

    /// Completions of several jobs in one statement, each row still under its own lease
    /// (`?1` the time, `?2` the worker, then `(id, attempt)` pairs); returns the claims recorded.
    static func completeManySQL(_ count: Int) -> String {
        let pairs = (0..<count).map { "(?\(3 + 2 * $0), ?\(4 + 2 * $0))" }.joined(separator: ", ")
        return """
            UPDATE jobs SET state = 'completed', finalized_at = ?1, lease_until = NULL
            FROM (VALUES \(pairs)) AS batch
            WHERE jobs.id = batch.column1 AND jobs.attempt = batch.column2 AND jobs.locked_by = ?2 AND jobs.state = 'running'
            RETURNING jobs.id, jobs.attempt
            """
    }
    /// Positions in ``completeManySQL(_:)``'s `RETURNING` list.
    enum CompletedColumn { static let id = 0, attempt = 1 }

    /// The statement sizes completions are recorded in (larger first): few distinct statements
    /// for the statement cache.
    static let completeChunks = [64, 16, 4, 1]
    static let completeManySQLs = Dictionary(uniqueKeysWithValues: completeChunks.map { ($0, completeManySQL($0)) })

    /// Records completions, in chunks of one statement each; returns the claims recorded.
    static func complete(_ keys: [LeaseKey], worker: String, nowMs: Int64, in db: Database) throws -> Set<LeaseKey> {
        var recorded = Set<LeaseKey>()
        var rest = keys[...]
        while !rest.isEmpty {
            let size = completeChunks.first { $0 <= rest.count } ?? 1
            let chunk = rest.prefix(size)
            rest = rest.dropFirst(size)
            var values: [(any DatabaseValueConvertible)?] = [nowMs, worker]
            values.reserveCapacity(2 + 2 * size)
            for key in chunk {
                values.append(key.id)
                values.append(key.attempt)
            }
            let statement = try db.cachedStatement(sql: completeManySQLs[size]!)
            for row in try Row.fetchAll(statement, arguments: StatementArguments(values)) {
                recorded.insert(LeaseKey(id: row[CompletedColumn.id], attempt: row[CompletedColumn.attempt]))
            }
        }
        return recorded
    }

    /// Records outcomes in `db`'s transaction, each only if the lease is still held.
    static func finish(_ resolutions: [JobResolution], worker: String, now: Date, in db: Database) throws -> [FinishedJob] {
        guard !resolutions.isEmpty else { return [] }
        let nowMs = now.millisecondsSince1970
        lazy var iso = ISO8601.string(from: now)
        // Completions (most outcomes) first, several per statement.
        let completions = resolutions.compactMap { $0.action == .complete ? LeaseKey(id: $0.id, attempt: $0.attempt) : nil }
        let completed = completions.isEmpty ? [] : try complete(completions, worker: worker, nowMs: nowMs, in: db)
        var results: [FinishedJob] = []
        results.reserveCapacity(resolutions.count)
        for resolution in resolutions {
            let key: [(any DatabaseValueConvertible)?] = [resolution.id, resolution.attempt, worker]
            var state: JobState?
            switch resolution.action {
            case .complete:
                state = completed.contains(LeaseKey(id: resolution.id, attempt: resolution.attempt)) ? .completed : nil
            case .fail(let message, let retryAtMs):
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: failSQL),
                    arguments: StatementArguments(key + [nowMs, retryAtMs, iso, Self.clip(message)])
                )
                state = row.flatMap { JobState(rawValue: $0["state"]) }
            case .cancel(let reason):
                try db.cachedStatement(sql: cancelSQL).execute(arguments: StatementArguments(key + [nowMs, iso, Self.clip(reason)]))
                state = db.changesCount == 1 ? .cancelled : nil
            case .snooze(let untilMs):
                try db.cachedStatement(sql: snoozeSQL).execute(arguments: StatementArguments(key + [untilMs]))
                state = db.changesCount == 1 ? .scheduled : nil
            case .release:
                try db.cachedStatement(sql: releaseSQL).execute(arguments: StatementArguments(key))
                state = db.changesCount == 1 ? .available : nil
            }
            results.append(FinishedJob(resolution: resolution, state: state))
        }
        return results
    }

    /// Error messages are kept, but bounded.
    static func clip(_ message: String) -> String {
        message.count <= 2000 ? message : String(message.prefix(2000)) + "…"
    }

    func renewLeases(_ leases: [LeaseKey], worker: String, until: Date) async throws -> Set<Int64> {
        guard !leases.isEmpty else { return [] }
        let untilMs = until.millisecondsSince1970
        return try await database.writeSQLite { db in
            var held = Set<Int64>()
            let statement = try db.cachedStatement(sql: Self.renewSQL)
            for lease in leases {
                try statement.execute(arguments: [lease.id, lease.attempt, worker, untilMs])
                if db.changesCount == 1 { held.insert(lease.id) }
            }
            return held
        }
    }

    func reapExpiredLeases(now: Date) async throws -> [ReapedJob] {
        let nowMs = now.millisecondsSince1970
        let iso = ISO8601.string(from: now)
        return try await database.writeSQLite { db in
            try Row.fetchAll(
                db,
                sql: """
                    UPDATE jobs SET
                        state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
                        finalized_at = CASE WHEN attempt >= max_attempts THEN ?1 ELSE NULL END,
                        lease_until = NULL,
                        errors = json_insert(errors, '$[#]', json_object('at', ?2, 'attempt', attempt,
                            'error', 'lease expired: worker ' || COALESCE(locked_by, '?') || ' stopped renewing it (crash, kill or stall)'))
                    WHERE state = 'running' AND lease_until < ?1
                    RETURNING id, queue, kind, state
                    """,
                arguments: [nowMs, iso]
            ).map { ReapedJob(id: $0["id"], queue: $0["queue"], kind: $0["kind"], state: JobState(rawValue: $0["state"]) ?? .retryable) }
        }
    }

    func prune(finishedBefore: Date, discardedBefore: Date) async throws -> Int {
        var total = 0
        for (states, before) in [("'completed', 'cancelled'", finishedBefore), ("'discarded'", discardedBefore)] {
            // Small batches, each its own transaction, so pruning never holds the writer long.
            while true {
                let deleted = try await database.writeSQLite { db in
                    try db.execute(
                        sql: """
                            DELETE FROM jobs WHERE id IN (
                                SELECT id FROM jobs WHERE state IN (\(states)) AND finalized_at < ? LIMIT 2000)
                            """,
                        arguments: [before.millisecondsSince1970]
                    )
                    return db.changesCount
                }
                total += deleted
                if deleted < 2000 { break }
            }
        }
        return total
    }

    func readiness(now: Date) async throws -> [String: (ready: Int, oldestDueMs: Int64?)] {
        try await database.pool.read { db in
            var result: [String: (ready: Int, oldestDueMs: Int64?)] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT queue, COUNT(*) AS ready, MIN(run_at) AS oldest FROM jobs
                    WHERE state IN ('available', 'scheduled', 'retryable') AND run_at <= ?
                    GROUP BY queue
                    """,
                arguments: [now.millisecondsSince1970]
            ) {
                result[row["queue"]] = (row["ready"], row["oldest"])
            }
            return result
        }
    }
}

// MARK: Queue settings and instances

extension SQLiteJobStore {
    static let countSQL = """
        INSERT INTO job_stats (minute_ms, queue, metric, count) VALUES (?, ?, ?, ?)
        ON CONFLICT (minute_ms, queue, metric) DO UPDATE SET count = count + excluded.count
        """

    /// Adds `counts` to `job_stats`, in `db`'s transaction (the one recording the outcomes).
    static func count(_ counts: [JobStatsCount], in db: Database) throws {
        guard !counts.isEmpty else { return }
        let statement = try db.cachedStatement(sql: countSQL)
        for count in counts {
            try statement.execute(arguments: [count.minuteMs, count.queue, count.metric, count.count])
        }
    }

    func rollUpStats() async throws {
        try await database.writeSQLite { db in
            try db.execute(sql: """
                INSERT INTO job_stats (minute_ms, queue, metric, count)
                SELECT minute_ms, queue, 'enqueued', COUNT(*) FROM job_stats_enqueued WHERE true GROUP BY minute_ms, queue
                ON CONFLICT (minute_ms, queue, metric) DO UPDATE SET count = count + excluded.count;
                DELETE FROM job_stats_enqueued;
                """)
        }
    }

    func pruneStats(before: Date) async throws -> Int {
        try await database.writeSQLite { db in
            try db.execute(sql: "DELETE FROM job_stats WHERE minute_ms < ?", arguments: [before.millisecondsSince1970])
            return db.changesCount
        }
    }

    func queueConcurrency() async throws -> [String: Int] {
        try await database.pool.read { db in
            var result: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, concurrency FROM job_queues WHERE concurrency IS NOT NULL") {
                result[row["name"]] = row["concurrency"]
            }
            return result
        }
    }

    func heartbeat(_ beat: InstanceHeartbeat, pruneBefore: Date) async throws {
        try await database.writeSQLite { db in
            try db.execute(
                sql: """
                    INSERT INTO job_instances (id, host, pid, version, started_at, heartbeat_at, running, queues)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, running = excluded.running,
                        queues = excluded.queues, version = excluded.version
                    """,
                arguments: [
                    beat.id, beat.host, beat.pid, beat.version, beat.startedAt.millisecondsSince1970, beat.at.millisecondsSince1970,
                    beat.running, beat.queuesJSON,
                ]
            )
            try db.execute(sql: "DELETE FROM job_instances WHERE heartbeat_at < ?", arguments: [pruneBefore.millisecondsSince1970])
        }
    }

    func removeInstance(id: String) async throws {
        try await database.writeSQLite { db in
            try db.execute(sql: "DELETE FROM job_instances WHERE id = ?", arguments: [id])
        }
    }
}
