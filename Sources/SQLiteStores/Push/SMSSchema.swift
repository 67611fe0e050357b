import GRDB
public import Push

/// Migration `push.012.sms`: text messages. `push_devices` is rebuilt (SQLite can't change a
/// CHECK constraint) to allow the `sms` channel and hold its number (`phone`, E.164), as
/// `push.007` did for email: ids and the AUTOINCREMENT sequence are kept, and the tables that
/// reference it follow the new table by name. `push_sms_mutes` keeps the numbers that texted
/// STOP, by keyed hash only (``SMSMuteStoring``). An SMS device's pending confirmation lives
/// in `push_email_confirmations` as an email's does (only its code is ever sent).
///
/// The rebuilt table keeps the old one's columns: `sealed_keys` only when the database has it
/// (a database a server without `push.008` migrated takes `push.008`, which adds it, later).
enum SMSSchema {
    static func migrate(_ db: Database) throws {
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'push_devices'")
        let sealed = try db.columns(in: "push_devices").contains { $0.name == "sealed_keys" }
        let sealedColumn = sealed ? "sealed_keys TEXT," : ""
        let sealedCopy = sealed ? ", sealed_keys" : ""
        try db.execute(sql: """
            CREATE TABLE push_devices_new (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
                uuid_hash TEXT UNIQUE,
                channel TEXT NOT NULL CHECK (channel IN ('apns', 'webpush', 'webhook', 'email', 'sms', 'log')),
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
                email TEXT,
                confirmed_at DATETIME,
                muted_categories TEXT NOT NULL DEFAULT '[]',
                \(sealedColumn)
                -- SMS devices: the number, E.164.
                phone TEXT,
                CHECK (account_id IS NOT NULL OR uuid_hash IS NOT NULL),
                CHECK (channel <> 'email' OR (email IS NOT NULL AND account_id IS NOT NULL)),
                CHECK (channel <> 'sms' OR (phone IS NOT NULL AND account_id IS NOT NULL))
            );
            INSERT INTO push_devices_new (id, account_id, uuid_hash, channel, name, apns_token, apns_environment, apns_topic, endpoint,
                p256dh, auth_secret, webhook_secret, active, created_at, registered_at, last_success_at, last_failure_at, last_error, failure_count,
                email, confirmed_at, muted_categories\(sealedCopy))
            SELECT id, account_id, uuid_hash, channel, name, apns_token, apns_environment, apns_topic, endpoint,
                p256dh, auth_secret, webhook_secret, active, created_at, registered_at, last_success_at, last_failure_at, last_error, failure_count,
                email, confirmed_at, muted_categories\(sealedCopy)
            FROM push_devices;
            DROP TABLE push_devices;
            ALTER TABLE push_devices_new RENAME TO push_devices;
            CREATE INDEX push_devices_account ON push_devices(account_id);
            CREATE TABLE push_sms_mutes (
                recipient BLOB PRIMARY KEY,
                muted_at DATETIME NOT NULL
            ) WITHOUT ROWID;
            """)
        if let sequence {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'push_devices'", arguments: [sequence])
            if db.changesCount == 0 {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('push_devices', ?)", arguments: [sequence])
            }
        }
    }
}
