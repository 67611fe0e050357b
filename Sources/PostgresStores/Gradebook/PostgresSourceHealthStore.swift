import Contracts
import Foundation
import Gradebook
import PostgresNIO
import Storage
import PostgresStorage

/// ``SourceHealthStoring`` on PostgreSQL: each source's polling record, shared by every
/// instance's poller.
struct PostgresSourceHealthStore: SourceHealthStoring {
    init() {}

    static let columns = "source_id, consecutive_failures, last_success_at, last_failure_at, last_error, backoff_until, polls, failures"

    static func decode(_ row: PostgresRow) throws -> SourceHealth {
        let (sourceID, failuresInARow, lastSuccess, lastFailure, lastError, backoffUntil, polls, failures) =
            try row.decode((Int64, Int, Date?, Date?, String?, Date?, Int, Int).self)
        return SourceHealth(
            sourceID: sourceID, consecutiveFailures: failuresInARow, lastSuccessAt: lastSuccess, lastFailureAt: lastFailure, lastError: lastError,
            backoffUntil: backoffUntil, polls: polls, failures: failures
        )
    }

    func health(sourceID: Int64, in transaction: any StoreTransaction) throws -> SourceHealth {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_source_health WHERE source_id = \(sourceID)")
            .first.map(Self.decode) ?? SourceHealth(sourceID: sourceID)
    }

    func all(in transaction: any StoreTransaction) throws -> [Int64: SourceHealth] {
        let rows = try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_source_health").map(Self.decode)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.sourceID, $0) })
    }

    func save(_ health: SourceHealth, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO gradebook_source_health
                (source_id, consecutive_failures, last_success_at, last_failure_at, last_error, backoff_until, polls, failures)
            VALUES (\(health.sourceID), \(health.consecutiveFailures), \(health.lastSuccessAt), \(health.lastFailureAt), \(health.lastError),
                \(health.backoffUntil), \(health.polls), \(health.failures))
            ON CONFLICT (source_id) DO UPDATE SET consecutive_failures = excluded.consecutive_failures,
                last_success_at = excluded.last_success_at, last_failure_at = excluded.last_failure_at,
                last_error = excluded.last_error, backoff_until = excluded.backoff_until, polls = excluded.polls,
                failures = excluded.failures
            """)
    }
}
