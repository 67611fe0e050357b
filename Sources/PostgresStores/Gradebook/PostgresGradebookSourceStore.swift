import Contracts
import Foundation
import Gradebook
import PostgresNIO
import Storage
import PostgresStorage

/// ``GradebookSourceStoring`` on PostgreSQL.
struct PostgresGradebookSourceStore: GradebookSourceStoring {
    init() {}

    static let columns = "id, name, kind, base_url, auth_style, poll_interval_seconds, max_concurrency, requests_per_minute, development, oauth_client_id, moodle_service"

    /// A source from its row; one that no longer reads as a source (edited by hand) is skipped.
    static func source(_ row: PostgresRow) throws -> GradebookSource? {
        let (id, name, kind, baseURL, authStyle, interval, concurrency, perMinute, development, clientID, service) =
            try row.decode((Int64, String, String, String, String, Int, Int, Int, Bool, String?, String?).self)
        guard let kind = GradebookSource.Kind(rawValue: kind), let style = GradebookSource.AuthStyle(rawValue: authStyle), let url = URL(string: baseURL)
        else { return nil }
        return GradebookSource(
            id: id, name: name, kind: kind, baseURL: url, authStyle: style, pollIntervalSeconds: interval, maxConcurrency: concurrency,
            requestsPerMinute: perMinute, development: development, oauthClientID: clientID, moodleService: service
        )
    }

    func sources(in transaction: any StoreTransaction) throws -> [GradebookSource] {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_sources ORDER BY id").compactMap(Self.source)
    }

    func source(id: Int64, in transaction: any StoreTransaction) throws -> GradebookSource? {
        try transaction.postgres().query("SELECT \(unescaped: Self.columns) FROM gradebook_sources WHERE id = \(id)").first.flatMap(Self.source)
    }

    func upsert(_ source: GradebookSource, at now: Date, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().query("""
            INSERT INTO gradebook_sources (id, name, kind, base_url, auth_style, poll_interval_seconds, max_concurrency,
                requests_per_minute, development, oauth_client_id, moodle_service, created_at, updated_at)
            VALUES (\(source.id), \(source.name), \(source.kind.rawValue), \(source.baseURL.absoluteString), \(source.authStyle.rawValue),
                \(source.pollIntervalSeconds), \(source.maxConcurrency), \(source.requestsPerMinute), \(source.development), \(source.oauthClientID),
                \(source.moodleService), \(now), \(now))
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, base_url = excluded.base_url,
                auth_style = excluded.auth_style, poll_interval_seconds = excluded.poll_interval_seconds,
                max_concurrency = excluded.max_concurrency, requests_per_minute = excluded.requests_per_minute,
                development = excluded.development, oauth_client_id = excluded.oauth_client_id,
                moodle_service = excluded.moodle_service, updated_at = excluded.updated_at
            RETURNING (xmax = 0)
            """).first?.decode(Bool.self) ?? false
    }

    func delete(id: Int64, in transaction: any StoreTransaction) throws -> Bool {
        try transaction.postgres().execute("DELETE FROM gradebook_sources WHERE id = \(id)") > 0
    }

    func sealedClientSecret(id: Int64, in transaction: any StoreTransaction) throws -> String? {
        try transaction.postgres().query("SELECT oauth_client_secret FROM gradebook_sources WHERE id = \(id)").first?.decode(String?.self) ?? nil
    }

    func setSealedClientSecret(id: Int64, _ sealed: String?, expected: String?, in transaction: any StoreTransaction) throws -> Bool {
        let transaction = try transaction.postgres()
        if let expected {
            return try transaction.execute(
                "UPDATE gradebook_sources SET oauth_client_secret = \(sealed) WHERE id = \(id) AND oauth_client_secret = \(expected)"
            ) > 0
        }
        return try transaction.execute("UPDATE gradebook_sources SET oauth_client_secret = \(sealed) WHERE id = \(id)") > 0
    }

    func sealedClientSecrets(in transaction: any StoreTransaction) throws -> [(id: Int64, sealed: String)] {
        try transaction.postgres().query(
            "SELECT id, oauth_client_secret FROM gradebook_sources WHERE oauth_client_secret IS NOT NULL ORDER BY id"
        ).map { row in
            let (id, sealed) = try row.decode((Int64, String).self)
            return (id: id, sealed: sealed)
        }
    }
}
