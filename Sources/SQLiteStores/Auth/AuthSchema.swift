import Auth
import GRDB
import Storage
import SQLiteStorage

/// ``AuthSchema``'s migrations on SQLite.
extension AuthSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
        Migration("auth.001.accounts-and-tokens") { db in
            try db.execute(sql: """
                CREATE TABLE accounts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    username TEXT NOT NULL UNIQUE,
                    email TEXT,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL CHECK (role IN ('student', 'instructor', 'admin')),
                    created_at DATETIME NOT NULL,
                    disabled INTEGER NOT NULL DEFAULT 0
                );
                CREATE UNIQUE INDEX accounts_email ON accounts(email) WHERE email IS NOT NULL;
                CREATE TABLE access_tokens (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    revoked_at DATETIME
                );
                CREATE INDEX access_tokens_account ON access_tokens(account_id);
                CREATE INDEX access_tokens_expiry ON access_tokens(expires_at);
                """)
        },
        Migration("auth.002.server-secret") { db in
            // A random key made once per database: usernames and addresses are kept in the
            // sign-in throttle and written to logs only as HMACs under it.
            try db.execute(sql: """
                CREATE TABLE auth_secrets (
                    name TEXT PRIMARY KEY,
                    value BLOB NOT NULL CHECK (length(value) >= 32)
                ) WITHOUT ROWID;
                INSERT INTO auth_secrets (name, value) VALUES ('server-key', randomblob(32));
                """)
        },
        Migration("auth.003.shared-sign-in-throttle") { db in
            // The sign-in throttle's counters, shared by every process on the file: one row per
            // attempt reserved or failure counted, on a counter (an HMAC tag), with the
            // reservation it belongs to (0 for failures counted against an address); and the
            // (username, address) pairs that signed in lately.
            try db.execute(sql: """
                CREATE TABLE auth_sign_in_entries (
                    counter BLOB NOT NULL,
                    at_ms INTEGER NOT NULL,
                    reservation INTEGER NOT NULL
                );
                CREATE INDEX auth_sign_in_entries_counter ON auth_sign_in_entries(counter, at_ms);
                CREATE INDEX auth_sign_in_entries_reservation ON auth_sign_in_entries(reservation) WHERE reservation <> 0;
                CREATE INDEX auth_sign_in_entries_age ON auth_sign_in_entries(at_ms);
                CREATE TABLE auth_known_addresses (
                    pair BLOB PRIMARY KEY,
                    signed_in_ms INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        },
        Migration("auth.004.campus-sign-in") { db in
            // Campus sign-in (OpenID Connect): identities by (issuer, subject), never by email;
            // browser flows between start and callback, and one-time sign-in codes, with their
            // state, browser binding and code as SHA-256 hashes only. A campus account has no
            // password: its password_hash is '' and no password check can pass.
            try db.execute(sql: """
                CREATE TABLE auth_campus_identities (
                    issuer TEXT NOT NULL,
                    subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
                    account_id INTEGER NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    name TEXT,
                    linked_at DATETIME NOT NULL,
                    signed_in_at DATETIME NOT NULL,
                    PRIMARY KEY (issuer, subject)
                ) WITHOUT ROWID;
                CREATE TABLE auth_campus_flows (
                    state_hash BLOB PRIMARY KEY,
                    browser_hash BLOB NOT NULL,
                    nonce TEXT NOT NULL,
                    code_verifier TEXT NOT NULL,
                    return_to TEXT NOT NULL,
                    expires_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX auth_campus_flows_expiry ON auth_campus_flows(expires_at);
                CREATE TABLE auth_campus_codes (
                    code_hash BLOB PRIMARY KEY,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    expires_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX auth_campus_codes_expiry ON auth_campus_codes(expires_at);
                """)
        },
        Migration("auth.005.sign-in-code-browser") { db in
            // A sign-in code is redeemable only by the browser the callback handed it to: the
            // SHA-256 of that browser's code cookie. A code kept before has none and is refused.
            try db.execute(sql: "ALTER TABLE auth_campus_codes ADD COLUMN browser_hash BLOB")
        },
        Migration("auth.006.display-names") { db in
            // How a student appears to others: the name they chose, and the one their
            // registration profile suggests (its first name). Neither is the username.
            try db.execute(sql: """
                CREATE TABLE auth_display_names (
                    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    chosen TEXT,
                    from_profile TEXT
                );
                """)
        },
        Migration("auth.007.operator-role") { db in
            // The `operator` role (the operator console without student data). SQLite can't
            // change a CHECK in place: the table is rebuilt (foreign keys are off while a
            // migration runs, and checked when it ends).
            try db.execute(sql: """
                CREATE TABLE accounts_new (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    username TEXT NOT NULL UNIQUE,
                    email TEXT,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL CHECK (role IN ('student', 'operator', 'instructor', 'admin')),
                    created_at DATETIME NOT NULL,
                    disabled INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO accounts_new (id, username, email, password_hash, role, created_at, disabled)
                SELECT id, username, email, password_hash, role, created_at, disabled FROM accounts;
                DROP TABLE accounts;
                ALTER TABLE accounts_new RENAME TO accounts;
                CREATE UNIQUE INDEX accounts_email ON accounts(email) WHERE email IS NOT NULL;
                """)
        },
        Migration("auth.008.audit-log") { db in
            // Every admin and operator write (docs/operations.md, "Audit log"): append-only,
            // pruned after 400 days. No foreign key: a record outlives its account.
            try db.execute(sql: """
                CREATE TABLE auth_audit_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    account_id INTEGER NOT NULL,
                    username TEXT NOT NULL,
                    role TEXT NOT NULL,
                    method TEXT NOT NULL,
                    route TEXT NOT NULL,
                    action TEXT NOT NULL,
                    target TEXT NOT NULL DEFAULT '{}',
                    status INTEGER NOT NULL,
                    arguments TEXT
                );
                CREATE INDEX auth_audit_log_at ON auth_audit_log(at);
                CREATE INDEX auth_audit_log_account ON auth_audit_log(account_id, id);
                CREATE INDEX auth_audit_log_username ON auth_audit_log(username, id);
                CREATE INDEX auth_audit_log_action ON auth_audit_log(action, id);
                """)
        },
    ]
}
