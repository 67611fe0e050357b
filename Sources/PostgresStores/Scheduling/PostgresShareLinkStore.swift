import Contracts
import Foundation
import PostgresNIO
import Scheduling
import PostgresStorage

/// ``ShareLinkStoring`` on PostgreSQL: links of saved schedules, owner-scoped, tokens hashed.
struct PostgresShareLinkStore: ShareLinkStoring {
    init() {}

    func insert(scheduleID: Int64, accountID: Int64, tokenHash: Data, at now: Date, expiresAt: Date?, in transaction: any StoreTransaction) throws -> ShareLink {
        let id = try transaction.postgres().query("""
            INSERT INTO scheduling_share_links (schedule_id, account_id, token_hash, created_at, expires_at)
            VALUES (\(scheduleID), \(accountID), \(tokenHash), \(now), \(expiresAt)) RETURNING id
            """).first?.decode(Int64.self) ?? 0
        return ShareLink(id: id, scheduleID: scheduleID, createdAt: now, expiresAt: expiresAt)
    }

    func liveLinks(scheduleID: Int64, accountID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> [ShareLink] {
        try transaction.postgres().query("""
            SELECT id, schedule_id, created_at, expires_at FROM scheduling_share_links
            WHERE schedule_id = \(scheduleID) AND account_id = \(accountID) AND (expires_at IS NULL OR expires_at > \(now)) ORDER BY id
            """).map { row in
            let (id, schedule, created, expires) = try row.decode((Int64, Int64, Date, Date?).self)
            return ShareLink(id: id, scheduleID: schedule, createdAt: created, expiresAt: expires)
        }
    }

    func delete(id: Int64, scheduleID: Int64, accountID: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute(
            "DELETE FROM scheduling_share_links WHERE id = \(id) AND schedule_id = \(scheduleID) AND account_id = \(accountID)"
        ) > 0
    }

    func deleteExpired(scheduleID: Int64, at now: Date, in transaction: any StoreTransaction) throws -> Int {
        try transaction.postgres().execute("DELETE FROM scheduling_share_links WHERE schedule_id = \(scheduleID) AND expires_at <= \(now)")
    }

    func target(tokenHash: Data, at now: Date, in transaction: any StoreTransaction) throws -> (scheduleID: Int64, accountID: Int64)? {
        try transaction.postgres().query("""
            SELECT schedule_id, account_id FROM scheduling_share_links
            WHERE token_hash = \(tokenHash) AND (expires_at IS NULL OR expires_at > \(now))
            """).first.map { try $0.decode((Int64, Int64).self) }
    }
}
