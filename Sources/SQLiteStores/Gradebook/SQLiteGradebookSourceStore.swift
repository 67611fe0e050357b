import Contracts
import Foundation
import GRDB
import Gradebook
import Storage
import SQLiteStorage

struct SQLiteGradebookSourceStore: GradebookSourceStoring {
    init() {}

    func sources(in transaction: any StoreTransaction) throws -> [GradebookSource] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT * FROM gradebook_sources ORDER BY id").compactMap(Self.source)
    }

    func source(id: Int64, in transaction: any StoreTransaction) throws -> GradebookSource? {
        let db = try transaction.sqlite()
        return try Row.fetchOne(db, sql: "SELECT * FROM gradebook_sources WHERE id = ?", arguments: [id]).flatMap(Self.source)
    }

    func upsert(_ source: GradebookSource, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM gradebook_sources WHERE id = ?", arguments: [source.id]) ?? false
        try db.execute(
            sql: """
                INSERT INTO gradebook_sources (id, name, kind, base_url, auth_style, poll_interval_seconds, max_concurrency,
                    requests_per_minute, development, oauth_client_id, moodle_service, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, base_url = excluded.base_url,
                    auth_style = excluded.auth_style, poll_interval_seconds = excluded.poll_interval_seconds,
                    max_concurrency = excluded.max_concurrency, requests_per_minute = excluded.requests_per_minute,
                    development = excluded.development, oauth_client_id = excluded.oauth_client_id,
                    moodle_service = excluded.moodle_service, updated_at = excluded.updated_at
                """,
            arguments: [
                source.id, source.name, source.kind.rawValue, source.baseURL.absoluteString, source.authStyle.rawValue,
                source.pollIntervalSeconds, source.maxConcurrency, source.requestsPerMinute, source.development, source.oauthClientID, source.moodleService, now, now,
            ]
        )
        return !exists
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        try db.execute(sql: "DELETE FROM gradebook_sources WHERE id = ?", arguments: [id])
        return db.changesCount > 0
    }

    static func source(_ row: Row) -> GradebookSource? {
        guard let kind = GradebookSource.Kind(rawValue: row["kind"]), let style = GradebookSource.AuthStyle(rawValue: row["auth_style"]),
              let url = URL(string: row["base_url"]) else { return nil }
        return GradebookSource(
            id: row["id"], name: row["name"], kind: kind, baseURL: url, authStyle: style,
            pollIntervalSeconds: row["poll_interval_seconds"], maxConcurrency: row["max_concurrency"],
            requestsPerMinute: row["requests_per_minute"], development: row["development"], oauthClientID: row["oauth_client_id"],
            moodleService: row["moodle_service"]
        )
    }

    func sealedClientSecret(id: Int64, in transaction: any StoreTransaction) throws -> String? {
        let db = try transaction.sqlite()
        return try String.fetchOne(db, sql: "SELECT oauth_client_secret FROM gradebook_sources WHERE id = ?", arguments: [id])
    }

    func setSealedClientSecret(id: Int64, _ sealed: String?, expected: String?, in transaction: any StoreTransaction) throws -> Bool {
        let db = try transaction.sqlite()
        if let expected {
            try db.execute(
                sql: "UPDATE gradebook_sources SET oauth_client_secret = ? WHERE id = ? AND oauth_client_secret = ?", arguments: [sealed, id, expected]
            )
        } else {
            try db.execute(sql: "UPDATE gradebook_sources SET oauth_client_secret = ? WHERE id = ?", arguments: [sealed, id])
        }
        return db.changesCount > 0
    }

    func sealedClientSecrets(in transaction: any StoreTransaction) throws -> [(id: Int64, sealed: String)] {
        let db = try transaction.sqlite()
        return try Row.fetchAll(db, sql: "SELECT id, oauth_client_secret FROM gradebook_sources WHERE oauth_client_secret IS NOT NULL ORDER BY id")
            .map { (id: $0["id"], sealed: $0["oauth_client_secret"]) }
    }
}
