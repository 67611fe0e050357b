import Contracts
import Foundation
import PostgresNIO
import Scheduling
import Storage
import PostgresStorage

/// ``ScheduleFeedStoring`` on PostgreSQL: one secret feed per saved schedule, owner-scoped.
struct PostgresScheduleFeedStore: ScheduleFeedStoring {
    init() {}

    func setFeed(scheduleID: Int64, accountID: Int64, tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO scheduling_schedule_feeds (schedule_id, account_id, token_hash, created_at)
            VALUES (\(scheduleID), \(accountID), \(tokenHash), \(now))
            ON CONFLICT (schedule_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at
            WHERE scheduling_schedule_feeds.account_id = excluded.account_id
            """)
    }

    func deleteFeed(scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "DELETE FROM scheduling_schedule_feeds WHERE schedule_id = \(scheduleID) AND account_id = \(accountID)"
        ) > 0
    }

    func deleteFeeds(accountID: Int64, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM scheduling_schedule_feeds WHERE account_id = \(accountID)")
    }

    func feedCreatedAt(scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Date? {
        try transaction.postgres().query(
            "SELECT created_at FROM scheduling_schedule_feeds WHERE schedule_id = \(scheduleID) AND account_id = \(accountID)"
        ).first?.decode(Date.self)
    }

    func feedTarget(tokenHash: Data, in transaction: any StoreTransaction) throws -> (scheduleID: Int64, accountID: Int64)? {
        guard let row = try transaction.postgres().query(
            "SELECT schedule_id, account_id FROM scheduling_schedule_feeds WHERE token_hash = \(tokenHash)"
        ).first else { return nil }
        let (scheduleID, accountID) = try row.decode((Int64, Int64).self)
        return (scheduleID, accountID)
    }
}
