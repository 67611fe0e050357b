import Contracts
import Foundation
import GatewayCore
import Jobs
import PostgresNIO
import Storage
import PostgresStorage

/// ``JobAdminStoring`` on PostgreSQL: reads and operator actions on jobs, queues and schedules,
/// in the caller's transaction.
struct PostgresJobAdminStore: JobAdminStoring {
    init() {}

    static let columns = """
        id, kind, queue, state, attempt, max_attempts, priority, args, errors::text, unique_key, run_at, attempted_at, locked_by,
        lease_until, finalized_at, created_at
        """
    /// Positions in ``columns`` past the eleven decoded as a tuple (`id` … `run_at`).
    enum RecordColumn { static let attemptedAt = 11, lockedBy = 12, leaseUntil = 13, finalizedAt = 14, createdAt = 15 }

    static func record(_ row: PostgresRow) throws -> JobRecord {
        let (id, kind, queue, state, attempt, maxAttempts, priority, args, errors, uniqueKey, runAt) =
            try row.decode((Int64, String, String, String, Int, Int, Int, String, String, String?, Int64).self)
        let cells = row.makeRandomAccess()
        typealias C = RecordColumn
        let attemptedAt = try cells[C.attemptedAt].decode(Int64?.self)
        let lockedBy = try cells[C.lockedBy].decode(String?.self)
        let leaseUntil = try cells[C.leaseUntil].decode(Int64?.self)
        let finalizedAt = try cells[C.finalizedAt].decode(Int64?.self)
        let createdAt = try cells[C.createdAt].decode(Int64.self)
        return JobRecord(
            id: id, kind: kind, queue: queue, state: JobState(rawValue: state) ?? .available, attempt: attempt, maxAttempts: maxAttempts,
            priority: priority, args: JSONValue(jsonText: args), errors: JobRecord.decodeErrors(errors), uniqueKey: uniqueKey,
            scheduledAt: Date(millisecondsSince1970: runAt), attemptedAt: attemptedAt.map(Date.init(millisecondsSince1970:)),
            attemptedBy: lockedBy, leaseUntil: leaseUntil.map(Date.init(millisecondsSince1970:)),
            finalizedAt: finalizedAt.map(Date.init(millisecondsSince1970:)), createdAt: Date(millisecondsSince1970: createdAt)
        )
    }

    func job(id: Int64, in transaction: any StoreTransaction) throws -> JobRecord? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM jobs WHERE id = \(id)").first.map(Self.record)
    }

    /// Newest first, ids below `before` (the cursor). Unset filters match everything.
    func list(_ filter: JobFilter, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [JobRecord] {
        let query = Self.matching(filter, before: before, select: "SELECT \(Self.columns) FROM jobs", suffix: " ORDER BY id DESC LIMIT ", last: limit)
        return try transaction.postgres().query(query).map(Self.record)
    }

    func count(_ filter: JobFilter, upTo limit: Int, in transaction: any StoreTransaction) throws -> Int {
        let inner = Self.matching(filter, before: nil, select: "SELECT COUNT(*)::bigint FROM (SELECT 1 FROM jobs", suffix: " LIMIT ", last: limit, close: ") AS matched")
        return try transaction.postgres().query(inner).first.map { Int(try $0.decode(Int64.self)) } ?? 0
    }

    func runNow(id: Int64, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("UPDATE jobs SET run_at = \(now.millisecondsSince1970) WHERE id = \(id)")
    }

    /// The arguments as jsonb, the expression the `jobs_args` index holds: NULL for arguments
    /// with an escaped NUL, which jsonb can't hold.
    static let argumentsAsJSONB = #"CASE WHEN strpos(args, '\u0000') = 0 THEN args::jsonb END"#

    /// `select`, the WHERE clause of `filter` (and `id < before`), `suffix`, the bound `last`,
    /// then `close`: every value is a bind. An `args.` match is a containment test on the
    /// arguments as jsonb, which the `jobs_args` GIN index answers.
    static func matching(_ filter: JobFilter, before: Int64?, select: String, suffix: String, last: Int, close: String = "") -> PostgresQuery {
        var sql = select
        var bindings = PostgresBindings()
        var clauses: [String] = []
        func bind(_ value: some PostgresNonThrowingEncodable & Sendable) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        if let before { clauses.append("id < \(bind(before))") }
        if let states = filter.states, !states.isEmpty { clauses.append("state = ANY(\(bind(states.map(\.rawValue))))") }
        if let queue = filter.queue { clauses.append("queue = \(bind(queue))") }
        if let kind = filter.kind { clauses.append("kind = \(bind(kind))") }
        if let ids = filter.ids { clauses.append("id = ANY(\(bind(ids)))") }
        for match in filter.arguments {
            let tests = match.containmentObjects.map { "(\(Self.argumentsAsJSONB)) @> \(bind($0))::jsonb" }
            clauses.append("(" + tests.joined(separator: " OR ") + ")")
        }
        if let since = filter.scheduledSince { clauses.append("run_at >= \(bind(since.millisecondsSince1970))") }
        if let until = filter.scheduledUntil { clauses.append("run_at < \(bind(until.millisecondsSince1970))") }
        if let text = filter.errorContains {
            clauses.append("strpos(lower(COALESCE(errors -> -1 ->> 'error', '')), lower(\(bind(text)))) > 0")
        }
        if let attempts = filter.minAttempt { clauses.append("attempt >= \(bind(attempts))") }
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += suffix + bind(last) + close
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    func queueNumbers(now: Date, in transaction: any StoreTransaction) throws -> [String: QueueNumbers] {
        let transaction = try transaction.postgres()
        let nowMs = now.millisecondsSince1970
        var numbers: [String: QueueNumbers] = [:]
        for row in try transaction.query("SELECT queue, state, COUNT(*) FROM jobs GROUP BY queue, state") {
            let (queue, state, count) = try row.decode((String, String, Int).self)
            if let state = JobState(rawValue: state) { numbers[queue, default: .init()].counts[state] = count }
        }
        for row in try transaction.query("""
            SELECT queue, MIN(run_at) FROM jobs
            WHERE state IN ('available', 'scheduled', 'retryable') AND run_at <= \(nowMs) GROUP BY queue
            """) {
            let (queue, oldest) = try row.decode((String, Int64?).self)
            numbers[queue, default: .init()].oldestReadyMs = oldest
        }
        let hourAgo = nowMs - 3_600_000
        let dayAgo = nowMs - 86_400_000
        for row in try transaction.query("""
            SELECT queue, state, COUNT(*) FILTER (WHERE finalized_at >= \(hourAgo)), COUNT(*) FROM jobs
            WHERE state IN ('completed', 'discarded') AND finalized_at >= \(dayAgo)
            GROUP BY queue, state
            """) {
            let (queue, state, hour, day) = try row.decode((String, String, Int, Int).self)
            if state == JobState.completed.rawValue {
                numbers[queue, default: .init()].completedLastHour = hour
                numbers[queue, default: .init()].completedLastDay = day
            } else {
                numbers[queue, default: .init()].failedLastHour = hour
                numbers[queue, default: .init()].failedLastDay = day
            }
        }
        for row in try transaction.query("SELECT name, paused, concurrency FROM job_queues") {
            let (name, paused, concurrency) = try row.decode((String, Bool, Int?).self)
            numbers[name, default: .init()].paused = paused
            numbers[name, default: .init()].concurrency = concurrency
        }
        return numbers
    }

    func setPaused(_ paused: Bool, queue: String, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO job_queues (name, paused, updated_at) VALUES (\(queue), \(paused), \(now.millisecondsSince1970))
            ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at
            """)
    }

    func isPaused(_ queue: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().query("SELECT paused FROM job_queues WHERE name = \(queue)").first?.decode(Bool.self) ?? false
    }

    func setConcurrency(_ concurrency: Int?, queue: String, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO job_queues (name, concurrency, updated_at) VALUES (\(queue), \(concurrency), \(now.millisecondsSince1970))
            ON CONFLICT (name) DO UPDATE SET concurrency = excluded.concurrency, updated_at = excluded.updated_at
            """)
    }

    func statsCounts(fromMs: Int64, untilMs: Int64, queue: String?, in transaction: any StoreTransaction) throws -> [JobStatsCount] {
        try transaction.postgres().query("""
            SELECT minute_ms, queue, metric, count FROM job_stats
            WHERE minute_ms >= \(fromMs) AND minute_ms < \(untilMs) AND (\(queue)::text IS NULL OR queue = \(queue)::text)
            UNION ALL
            SELECT minute_ms, queue, 'enqueued', COUNT(*) FROM job_stats_enqueued
            WHERE minute_ms >= \(fromMs) AND minute_ms < \(untilMs) AND (\(queue)::text IS NULL OR queue = \(queue)::text)
            GROUP BY minute_ms, queue
            """).map { row in
            let (minute, queue, metric, count) = try row.decode((Int64, String, String, Int64).self)
            return JobStatsCount(minuteMs: minute, queue: queue, metric: metric, count: Int(count))
        }
    }

    func instances(in transaction: any StoreTransaction) throws -> [InstanceHeartbeat] {
        try transaction.postgres().query("""
            SELECT id, host, pid, version, started_at, heartbeat_at, running, queues FROM job_instances ORDER BY started_at, id
            """).map { row in
            let (id, host, pid, version, started, beat, running, queues) = try row.decode((String, String, Int, String, Int64, Int64, Int, String).self)
            return InstanceHeartbeat(
                id: id, host: host, pid: pid, version: version, startedAt: Date(millisecondsSince1970: started),
                at: Date(millisecondsSince1970: beat), running: running, queues: InstanceHeartbeat.queues(fromJSON: queues)
            )
        }
    }

    func scheduleStatuses(timeZone zone: String, in transaction: any StoreTransaction) throws -> [JobsService.ScheduleStatus] {
        try transaction.postgres().query("""
            SELECT s.name, s.kind, s.queue, s.args, s.cron, s.interval_seconds, s.enabled, s.next_run_at, s.last_run_at, s.last_job_id,
                j.state, COALESCE(s.last_error, CASE WHEN j.state IN ('retryable', 'discarded', 'cancelled') THEN j.errors -> -1 ->> 'error' END)
            FROM job_schedules s LEFT JOIN jobs j ON j.id = s.last_job_id
            ORDER BY s.name
            """).map { row in
            let (name, kind, queue, args, cron, interval, enabled, next, lastRun, lastJob, lastState, lastError) =
                try row.decode((String, String, String, String, String?, Int?, Bool, Int64, Int64?, Int64?, String?, String?).self)
            return JobsService.ScheduleStatus(
                name: name, kind: kind, queue: queue, args: JSONValue(jsonText: args), cron: cron, intervalSeconds: interval, timeZone: zone,
                enabled: enabled, nextRunAt: next == Int64.max ? nil : Date(millisecondsSince1970: next),
                lastRunAt: lastRun.map(Date.init(millisecondsSince1970:)), lastJobId: lastJob,
                lastJobState: lastState.flatMap(JobState.init(rawValue:)), lastError: lastError
            )
        }
    }

    /// Makes a finished or waiting job available again now, with at least one attempt left.
    /// The unique-key index refuses it when another live job holds its key.
    func makeAvailable(id: Int64, now: Date, in transaction: any StoreTransaction) throws {
        let transaction = try transaction.postgres()
        do {
            try transaction.savepoint {
                try transaction.execute("""
                    UPDATE jobs SET state = 'available', run_at = \(now.millisecondsSince1970), finalized_at = NULL, lease_until = NULL,
                        max_attempts = GREATEST(max_attempts, attempt + 1)
                    WHERE id = \(id)
                    """)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw JobsError.uniqueKeyTaken(jobID: id)
        }
    }

    func cancel(id: Int64, reason: String, now: Date, in transaction: any StoreTransaction) throws {
        let iso = ISO8601.string(from: now)
        try transaction.postgres().execute("""
            UPDATE jobs SET state = 'cancelled', finalized_at = \(now.millisecondsSince1970), lease_until = NULL,
                errors = errors || jsonb_build_array(jsonb_build_object('at', \(iso)::text, 'attempt', attempt, 'error', \(reason)::text))
            WHERE id = \(id)
            """)
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("DELETE FROM jobs WHERE id = \(id)")
    }
}
