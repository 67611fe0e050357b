import Foundation
import GatewayCore
import Jobs
import PostgresNIO
import Storage
import PostgresStorage

/// Recurring schedules on PostgreSQL. Exactly one enqueue per tick across every instance: a
/// tick moves each due schedule's `next_run_at` from the value it read (`WHERE next_run_at =
/// <read>`) in a SERIALIZABLE unit, and enqueues only when that row changed; the job's unique key
/// `schedule:<name>:<tick ms>` guards the same again. The rules are SQLite's
/// (``SQLiteScheduleStore``), so both backends tick alike.
///
/// Only the leader ticks: the instance whose session holds the schedules' advisory lock
/// (``PostgresLeadership``). The others' ticks return at once, so N instances don't run N
/// contending ticks a second; when the leader dies, its lock goes with its session and the
/// next instance to tick takes over.
struct PostgresScheduleStore: ScheduleStoring {
    let database: GatewayPostgres
    let leadership: PostgresLeadership

    /// The advisory lock key of schedule leadership: the same in every instance.
    static let leaderLock = AdvisoryLocks.scheduleLeader

    init(database: GatewayPostgres, leadership: PostgresLeadership? = nil) {
        self.database = database
        self.leadership = leadership ?? PostgresLeadership(database: database, key: Self.leaderLock)
    }

    func sync(_ definitions: [ScheduleDefinition], now: Date, timeZone: TimeZone) async throws {
        guard !definitions.isEmpty else { return }
        try await database.write { transaction in
            let transaction = try transaction.postgres()
            for definition in definitions {
                let (cron, interval) = definition.rule.storedColumns
                let nextMs = ScheduleRule.nextRunMs(definition.rule, after: now, timeZone: timeZone)
                let args = String(decoding: definition.args, as: UTF8.self)
                try transaction.execute("""
                    INSERT INTO job_schedules AS s (name, kind, args, queue, cron, interval_seconds, enabled, next_run_at, priority, max_attempts)
                    VALUES (\(definition.name), \(definition.kind), \(args), \(definition.queue), \(cron), \(interval), true, \(nextMs),
                        \(definition.priority), \(definition.maxAttempts))
                    ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, args = excluded.args, queue = excluded.queue,
                        cron = excluded.cron, interval_seconds = excluded.interval_seconds, priority = excluded.priority,
                        max_attempts = excluded.max_attempts,
                        next_run_at = CASE WHEN s.cron IS NOT DISTINCT FROM excluded.cron
                            AND s.interval_seconds IS NOT DISTINCT FROM excluded.interval_seconds
                            THEN s.next_run_at ELSE excluded.next_run_at END
                    """)
            }
        }
    }

    /// A due schedule as read by a tick.
    struct Due {
        let name: String, kind: String, args: String, queue: String, cron: String?, interval: Int?, nextRunAt: Int64, priority: Int,
            maxAttempts: Int

        var rule: ScheduleRule? {
            if let cron { return try? ScheduleRule.cron(cron) }
            return .every(seconds: interval ?? 60)
        }

        func job(uniqueKey: String) -> NewJob {
            NewJob(kind: kind, rawArgs: Data(args.utf8), queue: queue, priority: priority, maxAttempts: maxAttempts, uniqueKey: uniqueKey)
        }
    }

    static func due(_ query: PostgresQuery, in transaction: PostgresTransaction) throws -> [Due] {
        try transaction.query(query).map { row in
            let (name, kind, args, queue, cron, interval, next, priority, attempts) =
                try row.decode((String, String, String, String, String?, Int?, Int64, Int, Int).self)
            return Due(
                name: name, kind: kind, args: args, queue: queue, cron: cron, interval: interval, nextRunAt: next, priority: priority,
                maxAttempts: attempts
            )
        }
    }

    static let dueColumns = "name, kind, args, queue, cron, interval_seconds, next_run_at, priority, max_attempts"

    @discardableResult
    func tick(now: Date, timeZone: TimeZone) async throws -> [ScheduleTick] {
        guard await leadership.isLeader() else { return [] }
        let nowMs = now.millisecondsSince1970
        return try await database.write { transaction in
            let transaction = try transaction.postgres()
            var ticks: [ScheduleTick] = []
            let due = try Self.due(
                "SELECT \(unescaped: Self.dueColumns) FROM job_schedules WHERE enabled AND next_run_at <= \(nowMs) ORDER BY next_run_at, name",
                in: transaction
            )
            for schedule in due {
                guard let rule = schedule.rule else {
                    try transaction.execute("""
                        UPDATE job_schedules SET last_error = 'the schedule''s rule does not parse', next_run_at = \(nowMs + 3_600_000)
                        WHERE name = \(schedule.name) AND next_run_at = \(schedule.nextRunAt)
                        """)
                    continue
                }
                let nextMs = ScheduleRule.nextRunMs(rule, after: now, timeZone: timeZone)
                let moved = try transaction.execute("""
                    UPDATE job_schedules SET next_run_at = \(nextMs), last_run_at = \(nowMs)
                    WHERE name = \(schedule.name) AND next_run_at = \(schedule.nextRunAt) AND enabled
                    """)
                guard moved == 1 else { continue }
                let result = try PostgresJobEnqueuer.enqueue(
                    schedule.job(uniqueKey: "schedule:\(schedule.name):\(schedule.nextRunAt)"), in: transaction, now: now
                )
                let lastError: String? = nextMs == Int64.max ? "the rule never fires again" : nil
                try transaction.execute("UPDATE job_schedules SET last_job_id = \(result.id), last_error = \(lastError) WHERE name = \(schedule.name)")
                ticks.append(ScheduleTick(schedule: schedule.name, tickMs: schedule.nextRunAt, jobID: result.id))
            }
            return ticks
        }
    }

    func runNow(name: String, now: Date) async throws -> JobEnqueuer.Result? {
        try await database.write { transaction in
            let transaction = try transaction.postgres()
            guard let schedule = try Self.due("SELECT \(unescaped: Self.dueColumns) FROM job_schedules WHERE name = \(name)", in: transaction).first
            else { return nil }
            let nowMs = now.millisecondsSince1970
            let result = try PostgresJobEnqueuer.enqueue(schedule.job(uniqueKey: "schedule:\(name):manual:\(nowMs)"), in: transaction, now: now)
            try transaction.execute("UPDATE job_schedules SET last_run_at = \(nowMs), last_job_id = \(result.id) WHERE name = \(name)")
            return result
        }
    }

    func setEnabled(_ enabled: Bool, name: String, now: Date, timeZone: TimeZone) async throws -> Bool {
        try await database.write { transaction in
            let transaction = try transaction.postgres()
            guard let row = try transaction.query("SELECT enabled, cron, interval_seconds FROM job_schedules WHERE name = \(name)").first else {
                return false
            }
            let (wasEnabled, cron, interval) = try row.decode((Bool, String?, Int?).self)
            if enabled, !wasEnabled {
                let rule: ScheduleRule? = if let cron { try? ScheduleRule.cron(cron) } else { .every(seconds: interval ?? 60) }
                let nextMs = rule.map { ScheduleRule.nextRunMs($0, after: now, timeZone: timeZone) } ?? now.millisecondsSince1970 + 3_600_000
                try transaction.execute("UPDATE job_schedules SET enabled = true, next_run_at = \(nextMs) WHERE name = \(name)")
            } else if !enabled {
                try transaction.execute("UPDATE job_schedules SET enabled = false WHERE name = \(name)")
            }
            return true
        }
    }
}
