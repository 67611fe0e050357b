import Friends
import GRDB
import SQLiteStorage
import Storage

/// ``FriendsSchema``'s migrations on SQLite.
extension FriendsSchema {
    static let migrationsOnSQLite: [Migration] = [
        Migration("friends.001.requests-friendships-blocks") { db in
            try db.execute(sql: """
                -- A request is kept whether or not it reaches anyone (recipient_id NULL: no such
                -- account, or one that blocked the sender), so the sender can't tell.
                CREATE TABLE friends_requests (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    sender_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    recipient_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
                    recipient_username TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL
                );
                CREATE INDEX friends_requests_sender ON friends_requests(sender_id, id);
                CREATE INDEX friends_requests_recipient ON friends_requests(recipient_id, id);
                CREATE INDEX friends_requests_expiry ON friends_requests(expires_at);
                -- Every request sent, for the daily limit (kept a day).
                CREATE TABLE friends_request_log (
                    sender_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    sent_at DATETIME NOT NULL
                );
                CREATE INDEX friends_request_log_sender ON friends_request_log(sender_id, sent_at);
                -- A friendship is a row each way, made and ended together.
                CREATE TABLE friends_friendships (
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    friend_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    since DATETIME NOT NULL,
                    PRIMARY KEY (account_id, friend_id)
                ) WITHOUT ROWID;
                CREATE TABLE friends_blocks (
                    blocker_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    blocked_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    created_at DATETIME NOT NULL,
                    PRIMARY KEY (blocker_id, blocked_id)
                ) WITHOUT ROWID;
                """)
        },
    ]
}
