import Contracts
import Foundation
import GRDB
import Scheduling
import Storage
import SQLiteStorage

struct SQLiteScheduleFeedStore: ScheduleFeedStoring {
    init() {}

    func setFeed(scheduleID: Int64, accountID: Int64, tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO scheduling_schedule_feeds (schedule_id, account_id, token_hash, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (schedule_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at
                WHERE scheduling_schedule_feeds.account_id = excluded.account_id
                """,
            arguments: [scheduleID, accountID, tokenHash, now]
        )
    }

    func deleteFeed(scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(
            sql: "DELETE FROM scheduling_schedule_feeds WHERE schedule_id = ? AND account_id = ?", arguments: [scheduleID, accountID]
        )
        return db.changesCount > 0
    }

    func deleteFeeds(accountID: Int64, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM scheduling_schedule_feeds WHERE account_id = ?", arguments: [accountID])
        return db.changesCount
    }

    func feedCreatedAt(scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Date? {
        let db = try transaction.sqlite()
        return try Date.fetchOne(
            db, sql: "SELECT created_at FROM scheduling_schedule_feeds WHERE schedule_id = ? AND account_id = ?",
            arguments: [scheduleID, accountID]
        )
    }

    func feedTarget(tokenHash: Data, in transaction: any StoreTransaction) throws -> (scheduleID: Int64, accountID: Int64)? {
        let db = try transaction.sqlite()
        guard let row = try Row.fetchOne(
            db, sql: "SELECT schedule_id, account_id FROM scheduling_schedule_feeds WHERE token_hash = ?", arguments: [tokenHash]
        ) else { return nil }
        return (row["schedule_id"], row["account_id"])
    }
}
