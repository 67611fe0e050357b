public import Foundation
public import GatewayCore
public import GRDB

/// Reads and operator actions on jobs and queues, in the caller's database access.
enum JobAdminQueries {
    /// Filters for the job list; nil matches everything.
    struct Filter: Sendable {
        var states: [JobState]?
        var queue: String?
        var kind: String?
    }

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

    static func job(id: Int64, in db: Database) throws -> JobRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM jobs WHERE id = ?", arguments: [id]).map(record)
    }

    /// Newest first, ids below `before` (the cursor).
    static func list(_ filter: Filter, before: Int64?, limit: Int, in db: Database) throws -> [JobRecord] {
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
        let whereClause = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        arguments += [limit]
        return try Row.fetchAll(db, sql: "SELECT * FROM jobs \(whereClause) ORDER BY id DESC LIMIT ?", arguments: arguments)
            .map(record)
    }

    /// Per-queue numbers for the admin view.
    struct QueueNumbers {
        var counts: [JobState: Int] = [:]
        var oldestReadyMs: Int64?
        var completedLastHour = 0
        var failedLastHour = 0
        var completedLastDay = 0
        var failedLastDay = 0
        var paused = false
    }

    static func queueNumbers(now: Date, in db: Database) throws -> [String: QueueNumbers] {
        let nowMs = now.millisecondsSince1970
        var numbers: [String: QueueNumbers] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT queue, state, COUNT(*) FROM jobs GROUP BY queue, state") {
            if let state = JobState(rawValue: row[1]) { numbers[row[0], default: .init()].counts[state] = row[2] }
        }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT queue, MIN(run_at) FROM jobs
                WHERE state IN ('available', 'scheduled', 'retryable') AND run_at <= ? GROUP BY queue
                """,
            arguments: [nowMs]
        ) {
            numbers[row[0], default: .init()].oldestReadyMs = row[1]
        }
        for row in try Row.fetchAll(
            db,
            sql: """
                SELECT queue, state, SUM(finalized_at >= ?), COUNT(*) FROM jobs
                WHERE state IN ('completed', 'discarded') AND finalized_at >= ?
                GROUP BY queue, state
                """,
            arguments: [nowMs - 3_600_000, nowMs - 86_400_000]
        ) {
            let hour: Int = row[2]
            let day: Int = row[3]
            if (row[1] as String) == JobState.completed.rawValue {
                numbers[row[0], default: .init()].completedLastHour = hour
                numbers[row[0], default: .init()].completedLastDay = day
            } else {
                numbers[row[0], default: .init()].failedLastHour = hour
                numbers[row[0], default: .init()].failedLastDay = day
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT name, paused FROM job_queues") {
            numbers[row[0], default: .init()].paused = row[1]
        }
        return numbers
    }

    static func setPaused(_ paused: Bool, queue: String, now: Date, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO job_queues (name, paused, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at
                """,
            arguments: [queue, paused, now.millisecondsSince1970]
        )
    }

    static func isPaused(_ queue: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT paused FROM job_queues WHERE name = ?", arguments: [queue]) ?? false
    }
}
