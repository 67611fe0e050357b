import GRDB
import Gradebook
import Storage
import SQLiteStorage

/// ``GradebookSchema``'s migrations on SQLite.
extension GradebookSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
        Migration("gradebook.001.sources-accounts") { db in
            try db.execute(sql: """
                CREATE TABLE gradebook_sources (
                    id INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 2147483647),
                    name TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    base_url TEXT NOT NULL,
                    auth_style TEXT NOT NULL,
                    poll_interval_seconds INTEGER NOT NULL,
                    max_concurrency INTEGER NOT NULL,
                    requests_per_minute INTEGER NOT NULL,
                    development INTEGER NOT NULL DEFAULT 0,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE gradebook_accounts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    source_id INTEGER NOT NULL REFERENCES gradebook_sources(id) ON DELETE CASCADE,
                    username TEXT NOT NULL,
                    -- The password sealed with AES-GCM by the vault; this row is its associated data.
                    sealed_password TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL,
                    UNIQUE (account_id, source_id, username)
                );
                CREATE INDEX gradebook_accounts_source ON gradebook_accounts(source_id);
                """)
        },
        Migration("gradebook.002.device-accounts") { db in
            // Accounts owned by a device (QuickHAC: the device's uuid, as a SHA-256 key), sealed
            // like students' accounts with this row as the associated data.
            try db.execute(sql: """
                CREATE TABLE gradebook_device_accounts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_key TEXT NOT NULL,
                    source_id INTEGER NOT NULL REFERENCES gradebook_sources(id) ON DELETE CASCADE,
                    username TEXT NOT NULL,
                    sealed_password TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL,
                    UNIQUE (device_key, username)
                );
                """)
        },
        Migration("gradebook.003.snapshots") { db in
            // The last snapshot of each polled (device account, student): what the next poll diffs against.
            try db.execute(sql: """
                CREATE TABLE gradebook_snapshots (
                    device_account_id INTEGER NOT NULL REFERENCES gradebook_device_accounts(id) ON DELETE CASCADE,
                    student TEXT NOT NULL,
                    snapshot TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    polled_at DATETIME NOT NULL,
                    PRIMARY KEY (device_account_id, student)
                ) WITHOUT ROWID;
                """)
        },
        Migration("gradebook.004.source-health") { db in
            // How each source answers polls, and until when polls back off from it.
            try db.execute(sql: """
                CREATE TABLE gradebook_source_health (
                    source_id INTEGER PRIMARY KEY REFERENCES gradebook_sources(id) ON DELETE CASCADE,
                    consecutive_failures INTEGER NOT NULL DEFAULT 0,
                    last_success_at DATETIME,
                    last_failure_at DATETIME,
                    last_error TEXT,
                    backoff_until DATETIME,
                    polls INTEGER NOT NULL DEFAULT 0,
                    failures INTEGER NOT NULL DEFAULT 0
                );
                """)
        },
        Migration("gradebook.005.account-snapshots") { db in
            // The last snapshot of each student's own stored account, polled for their grade alerts.
            try db.execute(sql: """
                CREATE TABLE gradebook_account_snapshots (
                    gradebook_account_id INTEGER PRIMARY KEY REFERENCES gradebook_accounts(id) ON DELETE CASCADE,
                    snapshot TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    polled_at DATETIME NOT NULL
                );
                """)
        },
        Migration("gradebook.006.canvas-oauth") { db in
            try db.execute(sql: """
                -- A Canvas source's developer key: its id, and its secret sealed by the vault.
                ALTER TABLE gradebook_sources ADD COLUMN oauth_client_id TEXT;
                ALTER TABLE gradebook_sources ADD COLUMN oauth_client_secret TEXT;
                -- What an account's sealed secret is (password, access-token, oauth), and whether it
                -- still works without its student (ok, needs-student).
                ALTER TABLE gradebook_accounts ADD COLUMN credential_kind TEXT NOT NULL DEFAULT 'password';
                ALTER TABLE gradebook_accounts ADD COLUMN status TEXT NOT NULL DEFAULT 'ok';
                """)
        },
        Migration("gradebook.007.canvas-oauth-flows") { db in
            // Canvas OAuth2 flows between the app's request and the owner's completion: the start
            // address works once, and Canvas's grant waits here (sealed) until the account that
            // began the flow completes it from its own signed-in app.
            try db.execute(sql: """
                CREATE TABLE gradebook_oauth_flows (
                    flow_key BLOB PRIMARY KEY,
                    owner_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    source_id INTEGER NOT NULL REFERENCES gradebook_sources(id) ON DELETE CASCADE,
                    return_to TEXT NOT NULL,
                    expires_at DATETIME NOT NULL,
                    started_at DATETIME,
                    code_hash BLOB UNIQUE,
                    sealed_grant TEXT,
                    canvas_user_id TEXT,
                    canvas_user_name TEXT,
                    completes_by DATETIME
                );
                CREATE INDEX gradebook_oauth_flows_owner ON gradebook_oauth_flows(owner_account_id);
                CREATE INDEX gradebook_oauth_flows_expiry ON gradebook_oauth_flows(expires_at);
                """)
        },
        Migration("gradebook.008.moodle-service") { db in
            // A Moodle source's web service (login/token.php's `service`); NULL for other kinds.
            try db.execute(sql: "ALTER TABLE gradebook_sources ADD COLUMN moodle_service TEXT;")
        },
    ]
}
