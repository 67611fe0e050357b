import GRDB
import Push
import Storage
import SQLiteStorage

/// ``PushSchema``'s migrations on SQLite.
extension PushSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
        Migration("push.001.devices-outbox") { db in
            try db.execute(sql: """
                CREATE TABLE push_devices (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    -- The gateway account that owns it; NULL for a QuickHAC device known only by its uuid.
                    account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
                    -- QuickHAC's device uuid, as SHA-256 hex (the uuid is the device's only credential).
                    uuid_hash TEXT UNIQUE,
                    channel TEXT NOT NULL CHECK (channel IN ('apns', 'webpush', 'webhook', 'log')),
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
                    CHECK (account_id IS NOT NULL OR uuid_hash IS NOT NULL)
                );
                CREATE INDEX push_devices_account ON push_devices(account_id);
                -- QuickHAC: a device follows some students of some gradebook accounts.
                CREATE TABLE push_device_students (
                    device_id INTEGER NOT NULL REFERENCES push_devices(id) ON DELETE CASCADE,
                    gradebook_account_id INTEGER NOT NULL,
                    student_id TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    PRIMARY KEY (device_id, gradebook_account_id, student_id)
                ) WITHOUT ROWID;
                -- One row per notification per device. unique_key makes a retried or replayed
                -- job notify once.
                CREATE TABLE push_notifications (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id INTEGER NOT NULL REFERENCES push_devices(id) ON DELETE CASCADE,
                    unique_key TEXT NOT NULL,
                    category TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    data TEXT NOT NULL DEFAULT '{}',
                    urgent INTEGER NOT NULL DEFAULT 0,
                    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'discarded', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    created_at DATETIME NOT NULL,
                    delivered_at DATETIME,
                    UNIQUE (device_id, unique_key)
                );
                CREATE INDEX push_notifications_state ON push_notifications(state, id);
                """)
        },
        Migration("push.002.seat-alerts") { db in
            // A student watching a class for an open seat; notified once per open event, then
            // disarmed unless they asked to be told every time.
            try db.execute(sql: """
                CREATE TABLE push_seat_alerts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    class_id INTEGER NOT NULL,
                    rearm INTEGER NOT NULL DEFAULT 0,
                    armed INTEGER NOT NULL DEFAULT 1,
                    created_at DATETIME NOT NULL,
                    last_notified_at DATETIME,
                    UNIQUE (account_id, class_id)
                );
                CREATE INDEX push_seat_alerts_class ON push_seat_alerts(class_id, armed);
                """)
        },
        Migration("push.003.preferences-schedule") { db in
            // Preferences per account (no row: the defaults). The outbox learns when each
            // notification may go (quiet hours and the hourly budget defer it) and keeps what
            // the channels need to send it as it was meant: collapse id and expiry.
            try db.execute(sql: """
                CREATE TABLE push_preferences (
                    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    muted TEXT NOT NULL DEFAULT '[]',
                    quiet_start INTEGER,
                    quiet_end INTEGER,
                    time_zone TEXT,
                    max_per_hour INTEGER NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                ALTER TABLE push_notifications ADD COLUMN deliver_at DATETIME;
                UPDATE push_notifications SET deliver_at = created_at;
                ALTER TABLE push_notifications ADD COLUMN collapse_id TEXT;
                ALTER TABLE push_notifications ADD COLUMN expires_at DATETIME;
                CREATE INDEX push_notifications_schedule ON push_notifications(device_id, deliver_at);
                """)
        },
        Migration("push.004.poll-windows") { db in
            // The start of the latest poll window queued for each followed student, so a tick
            // queues a window's poll once, whenever it runs (late, repeated or by hand).
            try db.execute(sql: """
                CREATE TABLE push_poll_windows (
                    gradebook_account_id INTEGER NOT NULL,
                    student_id TEXT NOT NULL,
                    window_start INTEGER NOT NULL,
                    PRIMARY KEY (gradebook_account_id, student_id)
                ) WITHOUT ROWID;
                """)
        },
        Migration("push.005.course-seat-alerts") { db in
            // Seat alerts on a course in a term (any section) beside those on one class, and an
            // optional notice when a class closes again. `push_seat_alert_openings` records which
            // class each alert was told opened, until that class closes: the closed-again notice
            // goes to those alerts. (SQLite can't drop NOT NULL: the table is rebuilt.)
            try db.execute(sql: """
                CREATE TABLE push_seat_alerts_new (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    class_id INTEGER,
                    term TEXT,
                    subject TEXT,
                    course_number TEXT,
                    rearm INTEGER NOT NULL DEFAULT 0,
                    notify_closed INTEGER NOT NULL DEFAULT 0,
                    armed INTEGER NOT NULL DEFAULT 1,
                    created_at DATETIME NOT NULL,
                    last_notified_at DATETIME,
                    CHECK ((class_id IS NULL) = (term IS NOT NULL)),
                    CHECK ((term IS NULL) = (subject IS NULL) AND (term IS NULL) = (course_number IS NULL))
                );
                INSERT INTO push_seat_alerts_new (id, account_id, class_id, rearm, armed, created_at, last_notified_at)
                    SELECT id, account_id, class_id, rearm, armed, created_at, last_notified_at FROM push_seat_alerts;
                DROP TABLE push_seat_alerts;
                ALTER TABLE push_seat_alerts_new RENAME TO push_seat_alerts;
                CREATE UNIQUE INDEX push_seat_alerts_class_watch ON push_seat_alerts(account_id, class_id) WHERE class_id IS NOT NULL;
                CREATE UNIQUE INDEX push_seat_alerts_course_watch ON push_seat_alerts(account_id, term, subject, course_number)
                    WHERE class_id IS NULL;
                CREATE INDEX push_seat_alerts_class ON push_seat_alerts(class_id, armed);
                CREATE INDEX push_seat_alerts_course ON push_seat_alerts(term, subject, course_number, armed);
                CREATE TABLE push_seat_alert_openings (
                    alert_id INTEGER NOT NULL REFERENCES push_seat_alerts(id) ON DELETE CASCADE,
                    class_id INTEGER NOT NULL,
                    notified_at DATETIME NOT NULL,
                    PRIMARY KEY (alert_id, class_id)
                ) WITHOUT ROWID;
                CREATE INDEX push_seat_alert_openings_class ON push_seat_alert_openings(class_id);
                """)
        },
        Migration("push.006.own-gradebook-alerts") { db in
            // Grade alerts for students' own stored gradebook accounts: a preference per account
            // (no row: all on) and the poll window last queued for each. The account ids are the
            // Gradebook module's; rows of accounts gone are forgotten when polls are queued.
            try db.execute(sql: """
                CREATE TABLE push_gradebook_preferences (
                    gradebook_account_id INTEGER PRIMARY KEY,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    enabled INTEGER NOT NULL DEFAULT 1,
                    muted TEXT NOT NULL DEFAULT '[]',
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE push_account_poll_windows (
                    gradebook_account_id INTEGER PRIMARY KEY,
                    window_start INTEGER NOT NULL
                );
                """)
        },
        Migration("push.007.email", EmailSchema.migrate),
        Migration("push.008.user-endpoints", UserEndpointSchema.migrate),
        Migration("push.009.quickhac-device-key") { db in
            // QuickHAC device keys become HMACs under this secret (``QuickHACDeviceKey``).
            try db.execute(sql: """
                CREATE TABLE push_secrets (
                    name TEXT PRIMARY KEY,
                    value BLOB NOT NULL CHECK (length(value) >= 32)
                ) WITHOUT ROWID;
                INSERT INTO push_secrets (name, value) VALUES ('quickhac-device-key', randomblob(32));
                """)
        },
        Migration("push.010.confirmation-recipients") { db in
            // Confirmation messages per recipient (a keyed hash of the normalised address, never
            // the address) across every account, and the secret the hash is keyed with
            // (``RecipientQuota``).
            try db.execute(sql: """
                CREATE TABLE push_confirmation_sends (
                    id INTEGER PRIMARY KEY,
                    channel TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
                    recipient BLOB NOT NULL,
                    sent_at DATETIME NOT NULL
                );
                CREATE INDEX push_confirmation_sends_recipient ON push_confirmation_sends(channel, recipient, sent_at);
                CREATE INDEX push_confirmation_sends_time ON push_confirmation_sends(channel, sent_at);
                INSERT INTO push_secrets (name, value) VALUES ('confirmation-recipient-key', randomblob(32));
                """)
        },
        Migration("push.011.seat-alert-tells") { db in
            // When each alert was told each class opened, for the last hour: the flap limit
            // (``SeatAlertFlapLimit``).
            try db.execute(sql: """
                CREATE TABLE push_seat_alert_tells (
                    id INTEGER PRIMARY KEY,
                    alert_id INTEGER NOT NULL REFERENCES push_seat_alerts(id) ON DELETE CASCADE,
                    class_id INTEGER NOT NULL,
                    told_at DATETIME NOT NULL
                );
                CREATE INDEX push_seat_alert_tells_alert ON push_seat_alert_tells(alert_id, class_id, told_at);
                """)
        },
        Migration("push.012.sms", SMSSchema.migrate),
        Migration("push.013.sms-abuse") { db in
            // Confirmation texts counted per client network (a keyed hash, never the address)
            // and whether each was a new device's first (``SMSQuota``); the inbound texts
            // already applied, by the provider's MessageSid, so a replay changes nothing; and
            // each number's last applied STOP or START with when it was received, so an older
            // START can't undo a STOP.
            try db.execute(sql: """
                ALTER TABLE push_confirmation_sends ADD COLUMN network BLOB;
                ALTER TABLE push_confirmation_sends ADD COLUMN new_device INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX push_confirmation_sends_network ON push_confirmation_sends(channel, network, sent_at);
                CREATE TABLE push_sms_inbound (
                    message_sid TEXT PRIMARY KEY,
                    received_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX push_sms_inbound_received ON push_sms_inbound(received_at);
                CREATE TABLE push_sms_keywords (
                    recipient BLOB PRIMARY KEY,
                    keyword TEXT NOT NULL CHECK (keyword IN ('stop', 'start')),
                    message_sid TEXT NOT NULL,
                    received_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                """)
        },
    ]
}
