import Contracts
import Foundation
import GRDB
import Push
import Storage
import SQLiteStorage

struct SQLiteNotificationStore: NotificationStoring {
    init() {}

    func insert(
        deviceID: Int64, uniqueKey: String, notification: OutgoingNotification, at now: Date, deliverAt: Date, in transaction: any StoreTransaction
    ) throws -> Int64? {
        let db = try transaction.sqlite()
        let data = String(decoding: try JSONEncoder().encode(notification.data), as: UTF8.self)
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO push_notifications
                    (device_id, unique_key, category, title, body, data, urgent, created_at, deliver_at, collapse_id, expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                deviceID, uniqueKey, notification.category, notification.title, notification.body, data, notification.urgent, now, deliverAt,
                notification.collapseID, notification.expiresAt,
            ]
        )
        return db.changesCount > 0 ? db.lastInsertedRowID : nil
    }

    func exists(deviceID: Int64, uniqueKey: String, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        return try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM push_notifications WHERE device_id = ? AND unique_key = ?)"),
            arguments: [deviceID, uniqueKey]
        ) ?? false
    }

    func scheduledTimes(deviceID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [Date] {
        let db = try transaction.sqlite()
        return try Date.fetchAll(
            db.cachedStatement(sql: "SELECT deliver_at FROM push_notifications WHERE device_id = ? AND deliver_at > ? ORDER BY deliver_at"),
            arguments: [deviceID, since]
        )
    }

    func notification(id: Int64, in transaction: any StoreTransaction) throws -> StoredNotification? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM push_notifications WHERE id = ?", arguments: [id]).map(Self.notification)
    }

    func record(id: Int64, state: StoredNotification.State, error: String?, at now: Date, in transaction: any StoreTransaction) throws {
        let db = try transaction.sqlite()
        try db.execute(
            sql: """
                UPDATE push_notifications SET state = ?, attempts = attempts + 1, last_error = ?,
                    delivered_at = CASE WHEN ? = 'delivered' THEN ? ELSE delivered_at END WHERE id = ?
                """,
            arguments: [state.rawValue, error.map { String($0.prefix(300)) }, state.rawValue, now, id]
        )
    }

    func recent(state: StoredNotification.State?, deviceIDs: [Int64]?, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [StoredNotification] {
        let db = try transaction.sqlite()
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let before {
            conditions.append("id < ?")
            _ = arguments.append(contentsOf: [before])
        }
        if let state {
            conditions.append("state = ?")
            _ = arguments.append(contentsOf: [state.rawValue])
        }
        if let deviceIDs {
            guard !deviceIDs.isEmpty else { return [] }
            conditions.append("device_id IN (\(Array(repeating: "?", count: deviceIDs.count).joined(separator: ",")))")
            _ = arguments.append(contentsOf: StatementArguments(deviceIDs))
        }
        _ = arguments.append(contentsOf: [limit])
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try Row.fetchAll(db, sql: "SELECT * FROM push_notifications \(filter) ORDER BY id DESC LIMIT ?", arguments: arguments).map(Self.notification)
    }

    func counts(in transaction: any StoreTransaction) throws -> [StoredNotification.State: Int] {
        let db = try transaction.sqlite()
        var counts: [StoredNotification.State: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM push_notifications GROUP BY state") {
            if let state = StoredNotification.State(rawValue: row["state"]) { counts[state] = row["n"] }
        }
        return counts
    }

    static func notification(_ row: Row) -> StoredNotification {
        let dataText: String = row["data"]
        let data = (try? JSONDecoder().decode([String: String].self, from: Data(dataText.utf8))) ?? [:]
        let id: Int64 = row["id"]
        let uniqueKey: String = row["unique_key"]
        return StoredNotification(
            id: id, deviceID: row["device_id"], uniqueKey: uniqueKey,
            notification: OutgoingNotification(
                id: "n\(id)", category: row["category"], title: row["title"], body: row["body"], data: data, urgent: row["urgent"],
                collapseID: row["collapse_id"], expiresAt: row["expires_at"]
            ),
            state: StoredNotification.State(rawValue: row["state"]) ?? .pending, attempts: row["attempts"], lastError: row["last_error"],
            createdAt: row["created_at"], deliverAt: row["deliver_at"] ?? row["created_at"], deliveredAt: row["delivered_at"]
        )
    }
}
