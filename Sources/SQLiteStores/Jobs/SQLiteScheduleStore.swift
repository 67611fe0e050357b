import Foundation
import GRDB
import Jobs
import Storage
import SQLiteStorage

/// Recurring schedules in `job_schedules`: declaration sync, the tick, and admin operations.
///
/// Exactly one enqueue per tick, across restarts and processes: a tick reads due schedules and,
/// in the same IMMEDIATE write transaction, moves each one's `next_run_at` from the value it read
/// to the next run (`WHERE next_run_at = <read>`), enqueueing only when that row changed. The
/// job's unique key `schedule:<name>:<tick ms>` guards the same again. The next run is computed
/// from *now*, so ticks missed during downtime run once, not as a burst.
struct SQLiteScheduleStore: ScheduleStoring {
    let database: GatewayDatabase

    let signals: JobSignals

    init(database: GatewayDatabase, signals: JobSignals) {
        self.database = database
        self.signals = signals
    }


    /// Writes declarations: new schedules start enabled with their first run after `now`;
    /// existing ones take the declared kind, arguments and queue, and a new next run only when
    /// their rule changed. An operator's enable/disable is kept.
    func sync(_ definitions: [ScheduleDefinition], now: Date, timeZone: TimeZone) async throws {
        guard !definitions.isEmpty else { return }
        try await database.writeSQLite { db in
            for definition in definitions {
                let (cron, interval) = definition.rule.storedColumns
                let nextMs = ScheduleRule.nextRunMs(definition.rule, after: now, timeZone: timeZone)
                let existing = try Row.fetchOne(
                    db, sql: "SELECT cron, interval_seconds FROM job_schedules WHERE name = ?", arguments: [definition.name]
                )
                let args = String(decoding: definition.args, as: UTF8.self)
                if let existing {
                    let changed = (existing["cron"] as String?) != cron || (existing["interval_seconds"] as Int?) != interval
                    try db.execute(
                        sql: """
                            UPDATE job_schedules SET kind = ?, args = ?, queue = ?, cron = ?, interval_seconds = ?,
                                priority = ?, max_attempts = ?,
                                next_run_at = CASE WHEN ? THEN ? ELSE next_run_at END
                            WHERE name = ?
                            """,
                        arguments: [
                            definition.kind, args, definition.queue, cron, interval, definition.priority,
                            definition.maxAttempts, changed, nextMs, definition.name,
                        ]
                    )
                } else {
                    try db.execute(
                        sql: """
                            INSERT INTO job_schedules (name, kind, args, queue, cron, interval_seconds, enabled,
                                next_run_at, priority, max_attempts)
                            VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
                            """,
                        arguments: [
                            definition.name, definition.kind, args, definition.queue, cron, interval, nextMs,
                            definition.priority, definition.maxAttempts,
                        ]
                    )
                }
            }
        }
    }

    /// Enqueues one job for each enabled schedule that is due at `now`.
    @discardableResult
    func tick(now: Date, timeZone: TimeZone) async throws -> [ScheduleTick] {
        let nowMs = now.millisecondsSince1970
        // Most rounds find nothing due: a read costs less than taking the write lock.
        let anyDue = try await database.pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM job_schedules WHERE enabled = 1 AND next_run_at <= ? LIMIT 1", arguments: [nowMs]
            ) ?? false
        }
        guard anyDue else { return [] }
        return try await database.writeSQLite { db in
            var ticks: [ScheduleTick] = []
            let due = try Row.fetchAll(
                db, sql: "SELECT * FROM job_schedules WHERE enabled = 1 AND next_run_at <= ? ORDER BY next_run_at, name",
                arguments: [nowMs]
            )
            for row in due {
                let name: String = row["name"]
                let tickMs: Int64 = row["next_run_at"]
                guard let rule = try? Self.rule(row) else {
                    try db.execute(
                        sql: "UPDATE job_schedules SET last_error = ?, next_run_at = ? WHERE name = ? AND next_run_at = ?",
                        arguments: ["the schedule's rule does not parse", nowMs + 3_600_000, name, tickMs]
                    )
                    continue
                }
                let nextMs = ScheduleRule.nextRunMs(rule, after: now, timeZone: timeZone)
                try db.execute(
                    sql: """
                        UPDATE job_schedules SET next_run_at = ?, last_run_at = ?
                        WHERE name = ? AND next_run_at = ? AND enabled = 1
                        """,
                    arguments: [nextMs, nowMs, name, tickMs]
                )
                guard db.changesCount == 1 else { continue }
                let job = NewJob(
                    kind: row["kind"], rawArgs: Data((row["args"] as String).utf8), queue: row["queue"],
                    priority: row["priority"], maxAttempts: row["max_attempts"], uniqueKey: "schedule:\(name):\(tickMs)"
                )
                let result = try JobEnqueuer.enqueue(job, in: db, now: now, signals: signals)
                try db.execute(
                    sql: "UPDATE job_schedules SET last_job_id = ?, last_error = ? WHERE name = ?",
                    arguments: [result.id, nextMs == Int64.max ? "the rule never fires again" : nil, name]
                )
                ticks.append(ScheduleTick(schedule: name, tickMs: tickMs, jobID: result.id))
            }
            return ticks
        }
    }

    /// Enqueues a schedule's job now, outside its rule; its next run is unchanged.
    func runNow(name: String, now: Date) async throws -> JobEnqueuer.Result? {
        try await database.writeSQLite { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM job_schedules WHERE name = ?", arguments: [name]) else {
                return nil
            }
            let nowMs = now.millisecondsSince1970
            let job = NewJob(
                kind: row["kind"], rawArgs: Data((row["args"] as String).utf8), queue: row["queue"],
                priority: row["priority"], maxAttempts: row["max_attempts"], uniqueKey: "schedule:\(name):manual:\(nowMs)"
            )
            let result = try JobEnqueuer.enqueue(job, in: db, now: now, signals: signals)
            try db.execute(
                sql: "UPDATE job_schedules SET last_run_at = ?, last_job_id = ? WHERE name = ?",
                arguments: [nowMs, result.id, name]
            )
            return result
        }
    }

    /// Enables or disables a schedule; re-enabling computes the next run from `now` (no stale
    /// tick fires). Returns false when no schedule has that name.
    func setEnabled(_ enabled: Bool, name: String, now: Date, timeZone: TimeZone) async throws -> Bool {
        try await database.writeSQLite { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM job_schedules WHERE name = ?", arguments: [name]) else {
                return false
            }
            if enabled, !(row["enabled"] as Bool) {
                let nextMs = (try? Self.rule(row)).map { ScheduleRule.nextRunMs($0, after: now, timeZone: timeZone) }
                    ?? now.millisecondsSince1970 + 3_600_000
                try db.execute(
                    sql: "UPDATE job_schedules SET enabled = 1, next_run_at = ? WHERE name = ?", arguments: [nextMs, name]
                )
            } else if !enabled {
                try db.execute(sql: "UPDATE job_schedules SET enabled = 0 WHERE name = ?", arguments: [name])
            }
            return true
        }
    }

    static func rule(_ row: Row) throws -> ScheduleRule {
        if let cron = row["cron"] as String? { return try ScheduleRule.cron(cron) }
        return .every(seconds: row["interval_seconds"] ?? 60)
    }
}
