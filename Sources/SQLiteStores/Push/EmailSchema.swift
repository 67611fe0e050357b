import GRDB
public import Push

/// Migration `push.007.email`: the email channel. `push_devices` is rebuilt (SQLite can't
/// change a CHECK constraint) to allow `email`, with the address, when it was confirmed and the
/// device's own muted categories; its ids and AUTOINCREMENT sequence are kept, and the tables
/// that reference it (`push_device_students`, `push_notifications`) follow the new table by
/// name. GRDB runs the migration with foreign keys off and checks them before committing.
enum EmailSchema {
    static func migrate(_ db: Database) throws {
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'push_devices'")
        try db.execute(sql: """
            CREATE TABLE push_devices_new (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
                uuid_hash TEXT UNIQUE,
                channel TEXT NOT NULL CHECK (channel IN ('apns', 'webpush', 'webhook', 'email', 'log')),
                name TEXT NOT NULL DEFAULT '',
                apns_token TEXT,
                apns_environment TEXT,
                apns_topic TEXT,
                endpoint TEXT,
                p256dh TEXT,
                auth_secret TEXT,
                webhook_secret BLOB,
                active INTEGER NOT NULL DEFAULT 1,
                created_at DATETIME NOT NULL,
                registered_at DATETIME NOT NULL,
                last_success_at DATETIME,
                last_failure_at DATETIME,
                last_error TEXT,
                failure_count INTEGER NOT NULL DEFAULT 0,
                -- Email devices: the address, when it was confirmed (NULL: inactive, mailed
                -- nothing but confirmations), and categories muted by one-click unsubscribe.
                email TEXT,
                confirmed_at DATETIME,
                muted_categories TEXT NOT NULL DEFAULT '[]',
                CHECK (account_id IS NOT NULL OR uuid_hash IS NOT NULL),
                CHECK (channel <> 'email' OR (email IS NOT NULL AND account_id IS NOT NULL))
            );
            INSERT INTO push_devices_new (id, account_id, uuid_hash, channel, name, apns_token, apns_environment, apns_topic, endpoint,
                p256dh, auth_secret, webhook_secret, active, created_at, registered_at, last_success_at, last_failure_at, last_error, failure_count)
            SELECT id, account_id, uuid_hash, channel, name, apns_token, apns_environment, apns_topic, endpoint,
                p256dh, auth_secret, webhook_secret, active, created_at, registered_at, last_success_at, last_failure_at, last_error, failure_count
            FROM push_devices;
            DROP TABLE push_devices;
            ALTER TABLE push_devices_new RENAME TO push_devices;
            CREATE INDEX push_devices_account ON push_devices(account_id);
            -- The pending confirmation of an email device: hashes of the mailed code and link
            -- token (never the values), when they expire, wrong codes so far.
            CREATE TABLE push_email_confirmations (
                device_id INTEGER PRIMARY KEY REFERENCES push_devices(id) ON DELETE CASCADE,
                code_hash BLOB NOT NULL,
                token_hash BLOB NOT NULL UNIQUE,
                expires_at DATETIME NOT NULL,
                failed_attempts INTEGER NOT NULL DEFAULT 0,
                created_at DATETIME NOT NULL
            );
            -- Confirmation mails asked for, for the per-device and per-account limits. No
            -- foreign key on the device: removing it doesn't reset the count.
            CREATE TABLE push_email_mails (
                id INTEGER PRIMARY KEY,
                account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                device_id INTEGER NOT NULL,
                requested_at DATETIME NOT NULL
            );
            CREATE INDEX push_email_mails_account ON push_email_mails(account_id, requested_at);
            -- One-click unsubscribe links (RFC 8058) of mailed notifications: the hash of the
            -- link's token and what it turns off.
            CREATE TABLE push_unsubscribes (
                token_hash BLOB PRIMARY KEY,
                device_id INTEGER NOT NULL REFERENCES push_devices(id) ON DELETE CASCADE,
                category TEXT NOT NULL,
                seat_alert_id INTEGER,
                created_at DATETIME NOT NULL,
                used_at DATETIME
            ) WITHOUT ROWID;
            CREATE INDEX push_unsubscribes_device ON push_unsubscribes(device_id, created_at);
            """)
        if let sequence {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'push_devices'", arguments: [sequence])
            if db.changesCount == 0 {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('push_devices', ?)", arguments: [sequence])
            }
        }
    }
}
