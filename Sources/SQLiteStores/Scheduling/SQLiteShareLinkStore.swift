import Contracts
import Foundation
import GRDB
import Scheduling
import SQLiteStorage

struct SQLiteShareLinkStore: ShareLinkStoring {
    init() {}

    func insert(scheduleID: Int64, accountID: Int64, tokenHash: Data, at now: Date, expiresAt: Date?, in transaction: any StoreTransaction) throws -> ShareLink {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: """
            INSERT INTO scheduling_share_links (schedule_id, account_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [scheduleID, accountID, tokenHash, now, expiresAt])
        return ShareLink(id: db.lastInsertedRowID, scheduleID: scheduleID, createdAt: now, expiresAt: expiresAt)
    }

    func liveLinks(scheduleID: Int64, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [ShareLink] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT id, schedule_id, created_at, expires_at FROM scheduling_share_links
                WHERE schedule_id = ? AND account_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY id
                """),
            arguments: [scheduleID, accountID, now]
        ).map { row in ShareLink(id: row["id"], scheduleID: row["schedule_id"], createdAt: row["created_at"], expiresAt: row["expires_at"]) }
    }

    func delete(id: Int64, scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM scheduling_share_links WHERE id = ? AND schedule_id = ? AND account_id = ?")
            .execute(arguments: [id, scheduleID, accountID])
        return db.changesCount > 0
    }

    func deleteExpired(scheduleID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> Int {
        let db = try transaction.sqlite()
        try db.cachedStatement(sql: "DELETE FROM scheduling_share_links WHERE schedule_id = ? AND expires_at <= ?").execute(arguments: [scheduleID, now])
        return db.changesCount
    }

    func target(tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws -> (scheduleID: Int64, accountID: Int64)? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT schedule_id, account_id FROM scheduling_share_links
                WHERE token_hash = ? AND (expires_at IS NULL OR expires_at > ?)
                """),
            arguments: [tokenHash, now]
        ).map { ($0["schedule_id"], $0["account_id"]) }
    }
}
