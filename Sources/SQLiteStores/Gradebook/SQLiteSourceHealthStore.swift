import Contracts
import Foundation
import GRDB
import Gradebook
import Storage
import SQLiteStorage

/// Each source's poll health on SQLite (`gradebook_source_health`; no row: never polled).
struct SQLiteSourceHealthStore: SourceHealthStoring {
    init() {}

    func health(sourceID: Int64, in transaction: any StoreTransaction) throws -> SourceHealth {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM gradebook_source_health WHERE source_id = ?"), arguments: [sourceID])
            .map(Self.decode) ?? SourceHealth(sourceID: sourceID)
    }

    func all(in transaction: any StoreTransaction) throws -> [Int64: SourceHealth] {
        let db = try transaction.sqlite()
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM gradebook_source_health")
        return Dictionary(uniqueKeysWithValues: rows.map(Self.decode).map { ($0.sourceID, $0) })
    }

    func save(_ health: SourceHealth, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO gradebook_source_health
                    (source_id, consecutive_failures, last_success_at, last_failure_at, last_error, backoff_until, polls, failures)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source_id) DO UPDATE SET consecutive_failures = excluded.consecutive_failures,
                    last_success_at = excluded.last_success_at, last_failure_at = excluded.last_failure_at,
                    last_error = excluded.last_error, backoff_until = excluded.backoff_until, polls = excluded.polls,
                    failures = excluded.failures
                """,
            arguments: [
                health.sourceID, health.consecutiveFailures, health.lastSuccessAt, health.lastFailureAt, health.lastError, health.backoffUntil,
                health.polls, health.failures,
            ]
        )
    }

    static func decode(_ row: Row) -> SourceHealth {
        SourceHealth(
            sourceID: row["source_id"], consecutiveFailures: row["consecutive_failures"], lastSuccessAt: row["last_success_at"],
            lastFailureAt: row["last_failure_at"], lastError: row["last_error"], backoffUntil: row["backoff_until"], polls: row["polls"],
            failures: row["failures"]
        )
    }
}
