import Contracts
import Foundation
import GRDB
import GatewayCore
import Jobs
import Storage
import SQLiteStorage

/// ``JobAdminStoring`` on SQLite: reads and operator actions on jobs, queues and schedules, in the
/// caller's transaction.
struct SQLiteJobAdminStore: JobAdminStoring {
    init() {}

    static func record(_ row: Row) -> JobRecord {
        JobRecord(
            id: row["id"], kind: row["kind"], queue: row["queue"],
            state: JobState(rawValue: row["state"]) ?? .available, attempt: row["attempt"],
            maxAttempts: row["max_attempts"], priority: row["priority"], args: JSONValue(jsonText: row["args"]),
            errors: JobRecord.decodeErrors(row["errors"]), uniqueKey: row["unique_key"],
            scheduledAt: Date(millisecondsSince1970: row["run_at"]),
            attemptedAt: (row["attempted_at"] as Int64?).map(Date.init(millisecondsSince1970:)),
            attemptedBy: row["locked_by"],
            leaseUntil: (row["lease_until"] as Int64?).map(Date.init(millisecondsSince1970:)),
            finalizedAt: (row["finalized_at"] as Int64?).map(Date.init(millisecondsSince1970:)),
            createdAt: Date(millisecondsSince1970: row["created_at"])
        )
    }

    func job(id: Int64, in transaction: any StoreTransaction) throws -> JobRecord? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM jobs WHERE id = ?", arguments: [id]).map(Self.record)
    }

    /// Newest first, ids below `before` (the cursor).
    func list(_ filter: JobFilter, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [JobRecord] {
        let db = try transaction.sqlite()
        var (whereClause, arguments) = Self.matching(filter, before: before)
        arguments += [limit]
        return try Row.fetchAll(db, sql: "SELECT * FROM jobs \(whereClause) ORDER BY id DESC LIMIT ?", arguments: arguments)
            .map(Self.record)
    }

    func count(_ filter: JobFilter, upTo limit: Int, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        var (whereClause, arguments) = Self.matching(filter, before: nil)
        arguments += [limit]
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM jobs \(whereClause) LIMIT ?)", arguments: arguments) ?? 0
    }

    func runNow(id: Int64, now: Date, in transaction: any StoreTransaction) throws {
        try transaction.sqlite().execute(sql: "UPDATE jobs SET run_at = ? WHERE id = ?", arguments: [now.millisecondsSince1970, id])
    }

    /// The text a matching job's stored arguments must contain, for a value made only of
    /// characters no JSON writer of the gateway escapes (letters, digits, `.`, `_`, `-`, `@`,
    /// `+`, `:`, space): arguments are stored as the gateway encoded them, so such a value, as a
    /// number or inside a string, appears as itself. Nil for any other value (it could be
    /// stored escaped): the JSON test alone decides then.
    static func literalText(of value: String) -> String? {
        guard !value.isEmpty, value.unicodeScalars.allSatisfy({ scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar)) || "._-@+: ".unicodeScalars.contains(scalar))
        }) else { return nil }
        return value
    }

    /// The WHERE clause of `filter` (and `id < before`), with its arguments: every value bound.
    static func matching(_ filter: JobFilter, before: Int64?) -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if let before {
            clauses.append("id < ?")
            arguments += [before]
        }
        if let states = filter.states, !states.isEmpty {
            clauses.append("state IN (\(states.map { _ in "?" }.joined(separator: ", ")))")
            arguments += StatementArguments(states.map(\.rawValue))
        }
        if let queue = filter.queue {
            clauses.append("queue = ?")
            arguments += [queue]
        }
        if let kind = filter.kind {
            clauses.append("kind = ?")
            arguments += [kind]
        }
        if let ids = filter.ids {
            clauses.append(ids.isEmpty ? "0" : "id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))")
            arguments += StatementArguments(ids)
        }
        for match in filter.arguments {
            // A cheap test first, where it is exact: the value's own text is in the stored
            // arguments (a substring search), so the JSON is parsed only for rows that hold it.
            if let needle = Self.literalText(of: match.value) {
                clauses.append("instr(args, ?) > 0")
                arguments += [needle]
            }
            // `->` gives the argument as JSON text, which one of the candidates must equal.
            let candidates = match.candidates
            clauses.append("(args -> ?) IN (\(candidates.map { _ in "?" }.joined(separator: ", ")))")
            arguments += [match.sqlitePath]
            arguments += StatementArguments(candidates)
        }
        if let since = filter.scheduledSince {
            clauses.append("run_at >= ?")
            arguments += [since.millisecondsSince1970]
        }
        if let until = filter.scheduledUntil {
            clauses.append("run_at < ?")
            arguments += [until.millisecondsSince1970]
        }
        if let text = filter.errorContains {
            clauses.append("instr(lower(COALESCE(json_extract(errors, '$[#-1].error'), '')), lower(?)) > 0")
            arguments += [text]
        }
        if let attempts = filter.minAttempt {
            clauses.append("attempt >= ?")
            arguments += [attempts]
        }
        return (clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND "), arguments)
    }

    func queueNumbers(now: Date, in transaction: any StoreTransaction) throws -> [String: QueueNumbers] {
        let db = try transaction.sqlite()
        let nowMs = now.millisecondsSince1970
        var numbers: [String: QueueNumbers] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT queue, state, COUNT(*) AS count FROM jobs GROUP BY queue, state") {
            if let state = JobState(rawValue: row["state"]) { numbers[row["queue"], default: .init()].counts[state] = row["count"] }
        }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT queue, MIN(run_at) AS oldest FROM jobs
                WHERE state IN ('available', 'scheduled', 'retryable') AND run_at <= ? GROUP BY queue
                """,
            arguments: [nowMs]
        ) {
            numbers[row["queue"], default: .init()].oldestReadyMs = row["oldest"]
        }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT queue, state, SUM(finalized_at >= ?) AS last_hour, COUNT(*) AS last_day FROM jobs
                WHERE state IN ('completed', 'discarded') AND finalized_at >= ?
                GROUP BY queue, state
                """,
            arguments: [nowMs - 3_600_000, nowMs - 86_400_000]
        ) {
            let queue: String = row["queue"]
            let hour: Int = row["last_hour"]
            let day: Int = row["last_day"]
            if (row["state"] as String) == JobState.completed.rawValue {
                numbers[queue, default: .init()].completedLastHour = hour
                numbers[queue, default: .init()].completedLastDay = day
            } else {
                numbers[queue, default: .init()].failedLastHour = hour
                numbers[queue, default: .init()].failedLastDay = day
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT name, paused, concurrency FROM job_queues") {
            numbers[row["name"], default: .init()].paused = row["paused"]
            numbers[row["name"], default: .init()].concurrency = row["concurrency"]
        }
        return numbers
    }

    func setPaused(_ paused: Bool, queue: String, now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO job_queues (name, paused, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at
                """,
            arguments: [queue, paused, now.millisecondsSince1970]
        )
    }

    func isPaused(_ queue: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        return try Bool.fetchOne(db, sql: "SELECT paused FROM job_queues WHERE name = ?", arguments: [queue]) ?? false
    }

    func setConcurrency(_ concurrency: Int?, queue: String, now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO job_queues (name, concurrency, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET concurrency = excluded.concurrency, updated_at = excluded.updated_at
                """,
            arguments: [queue, concurrency, now.millisecondsSince1970]
        )
    }

    func statsCounts(fromMs: Int64, untilMs: Int64, queue: String?, in transaction: any StoreTransaction) throws -> [JobStatsCount] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db,
            sql: """
                SELECT minute_ms, queue, metric, count FROM job_stats
                WHERE minute_ms >= ?1 AND minute_ms < ?2 AND (?3 IS NULL OR queue = ?3)
                UNION ALL
                SELECT minute_ms, queue, 'enqueued', COUNT(*) FROM job_stats_enqueued
                WHERE minute_ms >= ?1 AND minute_ms < ?2 AND (?3 IS NULL OR queue = ?3)
                GROUP BY minute_ms, queue
                """,
            arguments: [fromMs, untilMs, queue]
        ).map { JobStatsCount(minuteMs: $0["minute_ms"], queue: $0["queue"], metric: $0["metric"], count: $0["count"]) }
    }

    func instances(in transaction: any StoreTransaction) throws -> [InstanceHeartbeat] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM job_instances ORDER BY started_at, id").map { row in
            InstanceHeartbeat(
                id: row["id"], host: row["host"], pid: row["pid"], version: row["version"],
                startedAt: Date(millisecondsSince1970: row["started_at"]), at: Date(millisecondsSince1970: row["heartbeat_at"]),
                running: row["running"], queues: InstanceHeartbeat.queues(fromJSON: row["queues"])
            )
        }
    }

    /// Every schedule with its last job's state and error, by name.
    func scheduleStatuses(timeZone zone: String, in transaction: any StoreTransaction) throws -> [JobsService.ScheduleStatus] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db,
            sql: """
                SELECT s.*, j.state AS last_job_state,
                    CASE WHEN j.state IN ('retryable', 'discarded', 'cancelled')
                        THEN json_extract(j.errors, '$[#-1].error') END AS last_job_error
                FROM job_schedules s LEFT JOIN jobs j ON j.id = s.last_job_id
                ORDER BY s.name
                """
        ).map { row in
            let next: Int64 = row["next_run_at"]
            return JobsService.ScheduleStatus(
                name: row["name"], kind: row["kind"], queue: row["queue"], args: JSONValue(jsonText: row["args"]),
                cron: row["cron"], intervalSeconds: row["interval_seconds"], timeZone: zone, enabled: row["enabled"],
                nextRunAt: next == Int64.max ? nil : Date(millisecondsSince1970: next),
                lastRunAt: (row["last_run_at"] as Int64?).map(Date.init(millisecondsSince1970:)),
                lastJobId: row["last_job_id"],
                lastJobState: (row["last_job_state"] as String?).flatMap(JobState.init(rawValue:)),
                lastError: (row["last_error"] as String?) ?? (row["last_job_error"] as String?)
            )
        }
    }

    /// Makes a finished or waiting job available again now, with at least one attempt left.
    /// The unique-key index refuses it when another live job holds its key.
    func makeAvailable(id: Int64, now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        do {
            try db.execute(
            sql: """
                UPDATE jobs SET state = 'available', run_at = ?, finalized_at = NULL, lease_until = NULL,
                    max_attempts = MAX(max_attempts, attempt + 1)
                WHERE id = ?
                """,
            arguments: [now.millisecondsSince1970, id]
        )
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw JobsError.uniqueKeyTaken(jobID: id)
        }
    }

    /// Cancels a job for good, recording why in its error history.
    func cancel(id: Int64, reason: String, now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                UPDATE jobs SET state = 'cancelled', finalized_at = ?1, lease_until = NULL,
                    errors = json_insert(errors, '$[#]', json_object('at', ?2, 'attempt', attempt, 'error', ?3))
                WHERE id = ?4
                """,
            arguments: [now.millisecondsSince1970, ISO8601.string(from: now), reason, id]
        )
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM jobs WHERE id = ?", arguments: [id])
    }
}
