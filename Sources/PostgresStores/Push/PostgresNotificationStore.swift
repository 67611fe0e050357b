import Contracts
import Foundation
import PostgresNIO
import Push
import Storage
import PostgresStorage

/// The outbox on PostgreSQL (``NotificationStoring``): `push_notifications`, one row per
/// notification per device. The unique key makes a retried or replayed job notify once
/// (`ON CONFLICT DO NOTHING`, as SQLite's `INSERT OR IGNORE`).
struct PostgresNotificationStore: NotificationStoring {
    init() {}

    static let columns = """
        id, device_id, unique_key, category, title, body, data, urgent, state, attempts, last_error, created_at, deliver_at,
        delivered_at, collapse_id, expires_at
        """

    func insert(
        deviceID: Int64, uniqueKey: String, notification: OutgoingNotification, at now: Date, deliverAt: Date, in transaction: any StoreTransaction
    ) throws -> Int64? {
        let data = String(decoding: try JSONEncoder().encode(notification.data), as: UTF8.self)
        return try transaction.postgres().query("""
            INSERT INTO push_notifications
                (device_id, unique_key, category, title, body, data, urgent, created_at, deliver_at, collapse_id, expires_at)
            VALUES (\(deviceID), \(uniqueKey), \(notification.category), \(notification.title), \(notification.body), \(data),
                \(notification.urgent), \(now), \(deliverAt), \(notification.collapseID), \(notification.expiresAt))
            ON CONFLICT (device_id, unique_key) DO NOTHING
            RETURNING id
            """).first?.decode(Int64.self)
    }

    func exists(deviceID: Int64, uniqueKey: String, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().query(
            "SELECT EXISTS (SELECT 1 FROM push_notifications WHERE device_id = \(deviceID) AND unique_key = \(uniqueKey))"
        ).first?.decode(Bool.self) ?? false
    }

    func scheduledTimes(deviceID: Int64, since: Date, in transaction: any StoreTransaction) throws -> [Date] {
        try transaction.postgres().query(
            "SELECT deliver_at FROM push_notifications WHERE device_id = \(deviceID) AND deliver_at > \(since) ORDER BY deliver_at"
        ).map { try $0.decode(Date.self) }
    }

    func notification(id: Int64, in transaction: any StoreTransaction) throws -> StoredNotification? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM push_notifications WHERE id = \(id)").first.map(Self.notification)
    }

    func record(id: Int64, state: StoredNotification.State, error: String?, at now: Date, in transaction: any StoreTransaction) throws {
        let error = error.map { String($0.prefix(300)) }
        try transaction.postgres().execute("""
            UPDATE push_notifications SET state = \(state.rawValue), attempts = attempts + 1, last_error = \(error),
                delivered_at = CASE WHEN \(state == .delivered) THEN \(now) ELSE delivered_at END
            WHERE id = \(id)
            """)
    }

    func recent(state: StoredNotification.State?, deviceIDs: [Int64]?, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [StoredNotification] {
        let transaction = try transaction.postgres()
        let before = before ?? Int64.max
        if let deviceIDs, deviceIDs.isEmpty { return [] }
        let rows: PostgresQueryResult
        switch (state, deviceIDs) {
        case (nil, nil):
            rows = try transaction.query("SELECT \(unescaped: Self.columns) FROM push_notifications WHERE id < \(before) ORDER BY id DESC LIMIT \(limit)")
        case (let state?, nil):
            rows = try transaction.query("""
                SELECT \(unescaped: Self.columns) FROM push_notifications WHERE state = \(state.rawValue) AND id < \(before) ORDER BY id DESC LIMIT \(limit)
                """)
        case (nil, let deviceIDs?):
            rows = try transaction.query("""
                SELECT \(unescaped: Self.columns) FROM push_notifications WHERE device_id = ANY(\(deviceIDs)) AND id < \(before) ORDER BY id DESC LIMIT \(limit)
                """)
        case (let state?, let deviceIDs?):
            rows = try transaction.query("""
                SELECT \(unescaped: Self.columns) FROM push_notifications
                WHERE state = \(state.rawValue) AND device_id = ANY(\(deviceIDs)) AND id < \(before) ORDER BY id DESC LIMIT \(limit)
                """)
        }
        return try rows.map(Self.notification)
    }

    func counts(in transaction: any StoreTransaction) throws -> [StoredNotification.State: Int] {
        var counts: [StoredNotification.State: Int] = [:]
        for row in try transaction.postgres().query("SELECT state, COUNT(*) FROM push_notifications GROUP BY state") {
            let (state, count) = try row.decode((String, Int).self)
            if let state = StoredNotification.State(rawValue: state) { counts[state] = count }
        }
        return counts
    }

    /// A notification from a row of ``columns``.
    static func notification(_ row: PostgresRow) throws -> StoredNotification {
        let cells = row.makeRandomAccess()
        let id = try cells["id"].decode(Int64.self)
        let data = (try? JSONDecoder().decode([String: String].self, from: Data(try cells["data"].decode(String.self).utf8))) ?? [:]
        return StoredNotification(
            id: id, deviceID: try cells["device_id"].decode(Int64.self), uniqueKey: try cells["unique_key"].decode(String.self),
            notification: OutgoingNotification(
                id: "n\(id)", category: try cells["category"].decode(String.self), title: try cells["title"].decode(String.self),
                body: try cells["body"].decode(String.self), data: data, urgent: try cells["urgent"].decode(Bool.self),
                collapseID: try cells["collapse_id"].decode(String?.self), expiresAt: try cells["expires_at"].decode(Date?.self)
            ),
            state: StoredNotification.State(rawValue: try cells["state"].decode(String.self)) ?? .pending,
            attempts: try cells["attempts"].decode(Int.self), lastError: try cells["last_error"].decode(String?.self),
            createdAt: try cells["created_at"].decode(Date.self), deliverAt: try cells["deliver_at"].decode(Date.self),
            deliveredAt: try cells["delivered_at"].decode(Date?.self)
        )
    }
}
