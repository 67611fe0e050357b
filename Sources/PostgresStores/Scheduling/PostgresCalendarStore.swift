import Contracts
import Foundation
import PostgresNIO
import Scheduling
import Storage
import PostgresStorage

/// ``CalendarStoring`` on PostgreSQL: the account feeds and exported calendars' revisions.
struct PostgresCalendarStore: CalendarStoring {
    init() {}

    func setFeed(accountID: Int64, tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("""
            INSERT INTO scheduling_calendar_feeds (account_id, token_hash, created_at) VALUES (\(accountID), \(tokenHash), \(now))
            ON CONFLICT (account_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at
            """)
    }

    func deleteFeed(accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM scheduling_calendar_feeds WHERE account_id = \(accountID)") > 0
    }

    func feedCreatedAt(accountID: Int64, in transaction: any StoreTransaction) throws -> Date? {
        try transaction.postgres().query("SELECT created_at FROM scheduling_calendar_feeds WHERE account_id = \(accountID)").first?.decode(Date.self)
    }

    func feedOwner(tokenHash: Data, in transaction: any StoreTransaction) throws -> Int64? {
        try transaction.postgres().query("SELECT account_id FROM scheduling_calendar_feeds WHERE token_hash = \(tokenHash)").first?.decode(Int64.self)
    }

    func revision(of calendar: String, contentHash: String, at now: Date, in transaction: any StoreTransaction) throws -> CalendarRevision {
        let transaction = try transaction.postgres()
        if let row = try transaction.query(
            "SELECT content_hash, changed_at, sequence FROM scheduling_calendar_revisions WHERE calendar = \(calendar)"
        ).first {
            let (hash, changedAt, sequence) = try row.decode((String, Date, Int).self)
            let stored = CalendarRevision(contentHash: hash, changedAt: changedAt, sequence: sequence)
            let next = stored.advanced(to: contentHash, at: now)
            guard next != stored else { return stored }
            try transaction.execute("""
                UPDATE scheduling_calendar_revisions SET content_hash = \(next.contentHash), changed_at = \(next.changedAt), sequence = \(next.sequence)
                WHERE calendar = \(calendar)
                """)
            return next
        }
        try transaction.execute("""
            INSERT INTO scheduling_calendar_revisions (calendar, content_hash, changed_at, sequence) VALUES (\(calendar), \(contentHash), \(now), 0)
            """)
        return CalendarRevision(contentHash: contentHash, changedAt: now, sequence: 0)
    }

    func forget(calendar: String, in transaction: any StoreTransaction) throws {
        try transaction.postgres().execute("DELETE FROM scheduling_calendar_revisions WHERE calendar = \(calendar)")
    }
}
