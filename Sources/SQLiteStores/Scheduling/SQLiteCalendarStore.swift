import Contracts
import Foundation
import GRDB
import Scheduling
import Storage
import SQLiteStorage

struct SQLiteCalendarStore: CalendarStoring {
    init() {}

    func setFeed(accountID: Int64, tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                INSERT INTO scheduling_calendar_feeds (account_id, token_hash, created_at) VALUES (?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at
                """,
            arguments: [accountID, tokenHash, now]
        )
    }

    func deleteFeed(accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM scheduling_calendar_feeds WHERE account_id = ?", arguments: [accountID])
        return db.changesCount > 0
    }

    func feedCreatedAt(accountID: Int64, in transaction: any StoreTransaction) throws -> Date? {
        let db = try transaction.sqlite()
        return try Date.fetchOne(db, sql: "SELECT created_at FROM scheduling_calendar_feeds WHERE account_id = ?", arguments: [accountID])
    }

    func feedOwner(tokenHash: Data, in transaction: any StoreTransaction) throws -> Int64? {
        let db = try transaction.sqlite()
        return try Int64.fetchOne(db, sql: "SELECT account_id FROM scheduling_calendar_feeds WHERE token_hash = ?", arguments: [tokenHash])
    }

    func revision(of calendar: String, contentHash: String, at now: Date, in transaction: any StoreTransaction) throws -> CalendarRevision {
        let db = try transaction.sqlite()
        if let row = try Row.fetchOne(
            db, sql: "SELECT content_hash, changed_at, sequence FROM scheduling_calendar_revisions WHERE calendar = ?", arguments: [calendar]
        ) {
            let stored = CalendarRevision(contentHash: row["content_hash"], changedAt: row["changed_at"], sequence: row["sequence"])
            let next = stored.advanced(to: contentHash, at: now)
            guard next != stored else { return stored }
            try db.execute(
                sql: "UPDATE scheduling_calendar_revisions SET content_hash = ?, changed_at = ?, sequence = ? WHERE calendar = ?",
                arguments: [next.contentHash, next.changedAt, next.sequence, calendar]
            )
            return next
        }
        let first = CalendarRevision(contentHash: contentHash, changedAt: now, sequence: 0)
        try db.execute(
            sql: "INSERT INTO scheduling_calendar_revisions (calendar, content_hash, changed_at, sequence) VALUES (?, ?, ?, ?)",
            arguments: [calendar, contentHash, now, 0]
        )
        return first
    }

    func forget(calendar: String, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM scheduling_calendar_revisions WHERE calendar = ?", arguments: [calendar])
    }
}
