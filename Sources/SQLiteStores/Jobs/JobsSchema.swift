import GRDB
import Jobs
import Storage
import SQLiteStorage

/// ``JobsSchema``'s migrations on SQLite.
extension JobsSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
        Migration("jobs.001.queue") { db in
            try db.execute(sql: """
                CREATE TABLE jobs (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    queue TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    args TEXT NOT NULL DEFAULT '{}',
                    state TEXT NOT NULL CHECK (state IN ('available', 'scheduled', 'running', 'retryable', 'completed', 'discarded', 'cancelled')),
                    attempt INTEGER NOT NULL DEFAULT 0,
                    max_attempts INTEGER NOT NULL DEFAULT 20 CHECK (max_attempts >= 1),
                    priority INTEGER NOT NULL DEFAULT 0,
                    run_at INTEGER NOT NULL,
                    lease_until INTEGER,
                    locked_by TEXT,
                    errors TEXT NOT NULL DEFAULT '[]',
                    unique_key TEXT,
                    created_at INTEGER NOT NULL,
                    attempted_at INTEGER,
                    finalized_at INTEGER
                );
                -- The claim: ready jobs of a queue in priority, time, id order.
                CREATE INDEX jobs_ready ON jobs(queue, priority, run_at, id) WHERE state IN ('available', 'scheduled', 'retryable');
                -- The reaper: running jobs by lease expiry.
                CREATE INDEX jobs_leases ON jobs(lease_until) WHERE state = 'running';
                -- Unique jobs: one live job per key.
                CREATE UNIQUE INDEX jobs_unique_live ON jobs(unique_key)
                    WHERE unique_key IS NOT NULL AND state IN ('available', 'scheduled', 'running', 'retryable');
                -- Admin listing and pruning.
                CREATE INDEX jobs_state_id ON jobs(state, id);
                CREATE INDEX jobs_kind_id ON jobs(kind, id);
                CREATE INDEX jobs_finalized ON jobs(state, finalized_at) WHERE finalized_at IS NOT NULL;

                CREATE TABLE job_schedules (
                    name TEXT PRIMARY KEY,
                    kind TEXT NOT NULL,
                    args TEXT NOT NULL DEFAULT '{}',
                    queue TEXT NOT NULL,
                    cron TEXT,
                    interval_seconds INTEGER,
                    enabled INTEGER NOT NULL DEFAULT 1,
                    next_run_at INTEGER NOT NULL,
                    last_run_at INTEGER,
                    last_job_id INTEGER,
                    last_error TEXT,
                    CHECK ((cron IS NULL) != (interval_seconds IS NULL))
                );

                CREATE TABLE job_queues (
                    name TEXT PRIMARY KEY,
                    paused INTEGER NOT NULL DEFAULT 0,
                    updated_at INTEGER NOT NULL
                );
                """)
        },
        Migration("jobs.002.schedule-job-options") { db in
            // Each tick's job takes the schedule's priority and attempts (few: a frequent
            // schedule's next tick comes soon anyway).
            try db.execute(sql: """
                ALTER TABLE job_schedules ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE job_schedules ADD COLUMN max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts >= 1);
                """)
        },
        Migration("jobs.003.trace-context") { db in
            // The W3C traceparent of the request (or job) that queued a job, so its run joins
            // that trace; NULL when tracing was off.
            try db.execute(sql: "ALTER TABLE jobs ADD COLUMN trace_context TEXT")
        },
        Migration("jobs.004.concurrency-and-instances") { db in
            // The operators' per-queue concurrency (NULL: each instance's configured number),
            // and one heartbeat row per running worker pool (docs/operations.md, "Console").
            try db.execute(sql: """
                ALTER TABLE job_queues ADD COLUMN concurrency INTEGER CHECK (concurrency BETWEEN 1 AND 256);
                CREATE TABLE job_instances (
                    id TEXT PRIMARY KEY,
                    host TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    version TEXT NOT NULL,
                    started_at INTEGER NOT NULL,
                    heartbeat_at INTEGER NOT NULL,
                    running INTEGER NOT NULL DEFAULT 0,
                    queues TEXT NOT NULL DEFAULT '{}'
                );
                """)
        },
        Migration("jobs.005.stats") { db in
            // Per-minute counts per queue for `GET /v1/admin/jobs/stats`: outcomes, enqueues and
            // a run-time histogram (`JobStatsMetric`), kept 7 days. Enqueues land first in
            // `job_stats_enqueued`, one row per job in the enqueuing transaction, rolled up by the
            // workers' chores.
            try db.execute(sql: """
                CREATE TABLE job_stats (
                    minute_ms INTEGER NOT NULL,
                    queue TEXT NOT NULL,
                    metric TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (minute_ms, queue, metric)
                ) WITHOUT ROWID;
                CREATE TABLE job_stats_enqueued (
                    minute_ms INTEGER NOT NULL,
                    queue TEXT NOT NULL
                );
                """)
        },
    ]
}
