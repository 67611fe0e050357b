import Friends
import PostgresStorage
import Storage

/// ``FriendsSchema``'s tables on PostgreSQL, as on SQLite (friends.001).
extension FriendsSchema {
    static let migrationsOnPostgres: [PostgresMigration] = [
        PostgresMigration("friends.pg.001.requests-friendships-blocks", [
            """
            CREATE TABLE friends_requests (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                sender_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                recipient_id bigint REFERENCES accounts (id) ON DELETE CASCADE,
                recipient_username text NOT NULL,
                created_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX friends_requests_sender ON friends_requests (sender_id, id)",
            "CREATE INDEX friends_requests_recipient ON friends_requests (recipient_id, id)",
            "CREATE INDEX friends_requests_expiry ON friends_requests (expires_at)",
            """
            CREATE TABLE friends_request_log (
                sender_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                sent_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX friends_request_log_sender ON friends_request_log (sender_id, sent_at)",
            """
            CREATE TABLE friends_friendships (
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                friend_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                since timestamptz NOT NULL,
                PRIMARY KEY (account_id, friend_id)
            )
            """,
            """
            CREATE TABLE friends_blocks (
                blocker_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                blocked_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (blocker_id, blocked_id)
            )
            """,
        ]),
    ]
}
