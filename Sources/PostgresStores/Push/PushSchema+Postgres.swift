import Push
import Storage
import PostgresStorage

/// Push's tables on PostgreSQL: the same tables as on SQLite after `push.009` (``EmailSchema``
/// and ``UserEndpointSchema`` included), in one migration and PostgreSQL's own types.
///
/// Two differences from SQLite, both deliberate:
/// - Device keys are only ever sealed here (`sealed_keys`). The clear-key columns SQLite keeps
///   for rows written before `push.008` (`p256dh`, `auth_secret`, `webhook_secret`, always NULL
///   after that migration) do not exist, so there is nothing to seal at start
///   (``PostgresDeviceStore/sealClearKeys(in:)`` returns 0).
/// - The QuickHAC device-key secret (`push_secrets`) is made by the migration on the server
///   from its strong random source: SHA-256 over three `gen_random_uuid()`s (366 random bits
///   from `pg_strong_random`, so neither pgcrypto nor `random()`), 32 bytes. The migration runs
///   once under the migration lock, so every instance reads the same secret, and the store
///   reads it in any transaction, the read-only one at start-up included.
extension PushSchema {
    /// The module's migrations on PostgreSQL, oldest first (``PostgresSchemaModule``
    /// conformance in SchemaModules+Postgres.swift).
    static let migrationsOnPostgres: [PostgresMigration] = [
        PostgresMigration("push.pg.001.devices-outbox-alerts-email", [
            """
            CREATE TABLE push_devices (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id bigint REFERENCES accounts (id) ON DELETE CASCADE,
                uuid_hash text UNIQUE,
                channel text NOT NULL CHECK (channel IN ('apns', 'webpush', 'webhook', 'email', 'log')),
                name text NOT NULL DEFAULT '',
                apns_token text,
                apns_environment text,
                apns_topic text,
                endpoint text,
                email text,
                sealed_keys text,
                active boolean NOT NULL DEFAULT true,
                created_at timestamptz NOT NULL,
                registered_at timestamptz NOT NULL,
                last_success_at timestamptz,
                last_failure_at timestamptz,
                last_error text,
                failure_count integer NOT NULL DEFAULT 0,
                confirmed_at timestamptz,
                muted_categories text NOT NULL DEFAULT '[]',
                CHECK (account_id IS NOT NULL OR uuid_hash IS NOT NULL),
                CHECK (channel <> 'email' OR (email IS NOT NULL AND account_id IS NOT NULL))
            )
            """,
            "CREATE INDEX push_devices_account ON push_devices (account_id)",
            """
            CREATE TABLE push_device_students (
                device_id bigint NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
                gradebook_account_id bigint NOT NULL,
                student_id text NOT NULL,
                created_at timestamptz NOT NULL,
                PRIMARY KEY (device_id, gradebook_account_id, student_id)
            )
            """,
            "CREATE INDEX push_device_students_student ON push_device_students (gradebook_account_id, student_id)",
            """
            CREATE TABLE push_notifications (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                device_id bigint NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
                unique_key text NOT NULL,
                category text NOT NULL,
                title text NOT NULL,
                body text NOT NULL,
                data text NOT NULL DEFAULT '{}',
                urgent boolean NOT NULL DEFAULT false,
                state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'discarded', 'failed')),
                attempts integer NOT NULL DEFAULT 0,
                last_error text,
                created_at timestamptz NOT NULL,
                delivered_at timestamptz,
                deliver_at timestamptz NOT NULL,
                collapse_id text,
                expires_at timestamptz,
                UNIQUE (device_id, unique_key)
            )
            """,
            "CREATE INDEX push_notifications_state ON push_notifications (state, id)",
            "CREATE INDEX push_notifications_schedule ON push_notifications (device_id, deliver_at)",
            """
            CREATE TABLE push_seat_alerts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                class_id bigint,
                term text,
                subject text,
                course_number text,
                rearm boolean NOT NULL DEFAULT false,
                notify_closed boolean NOT NULL DEFAULT false,
                armed boolean NOT NULL DEFAULT true,
                created_at timestamptz NOT NULL,
                last_notified_at timestamptz,
                CHECK ((class_id IS NULL) = (term IS NOT NULL)),
                CHECK ((term IS NULL) = (subject IS NULL) AND (term IS NULL) = (course_number IS NULL))
            )
            """,
            "CREATE UNIQUE INDEX push_seat_alerts_class_watch ON push_seat_alerts (account_id, class_id) WHERE class_id IS NOT NULL",
            """
            CREATE UNIQUE INDEX push_seat_alerts_course_watch ON push_seat_alerts (account_id, term, subject, course_number)
                WHERE class_id IS NULL
            """,
            "CREATE INDEX push_seat_alerts_class ON push_seat_alerts (class_id, armed)",
            "CREATE INDEX push_seat_alerts_course ON push_seat_alerts (term, subject, course_number, armed)",
            """
            CREATE TABLE push_seat_alert_openings (
                alert_id bigint NOT NULL REFERENCES push_seat_alerts (id) ON DELETE CASCADE,
                class_id bigint NOT NULL,
                notified_at timestamptz NOT NULL,
                PRIMARY KEY (alert_id, class_id)
            )
            """,
            "CREATE INDEX push_seat_alert_openings_class ON push_seat_alert_openings (class_id)",
            """
            CREATE TABLE push_preferences (
                account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                muted text NOT NULL DEFAULT '[]',
                quiet_start integer,
                quiet_end integer,
                time_zone text,
                max_per_hour integer NOT NULL,
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE push_poll_windows (
                gradebook_account_id bigint NOT NULL,
                student_id text NOT NULL,
                window_start bigint NOT NULL,
                PRIMARY KEY (gradebook_account_id, student_id)
            )
            """,
            """
            CREATE TABLE push_gradebook_preferences (
                gradebook_account_id bigint PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                enabled boolean NOT NULL DEFAULT true,
                muted text NOT NULL DEFAULT '[]',
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE push_account_poll_windows (
                gradebook_account_id bigint PRIMARY KEY,
                window_start bigint NOT NULL
            )
            """,
            """
            CREATE TABLE push_email_confirmations (
                device_id bigint PRIMARY KEY REFERENCES push_devices (id) ON DELETE CASCADE,
                code_hash bytea NOT NULL,
                token_hash bytea NOT NULL UNIQUE,
                expires_at timestamptz NOT NULL,
                failed_attempts integer NOT NULL DEFAULT 0,
                created_at timestamptz NOT NULL
            )
            """,
            // No foreign key on the device (as on SQLite): removing it doesn't reset the count.
            """
            CREATE TABLE push_email_mails (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id bigint NOT NULL,
                requested_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX push_email_mails_account ON push_email_mails (account_id, requested_at)",
            """
            CREATE TABLE push_unsubscribes (
                token_hash bytea PRIMARY KEY,
                device_id bigint NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
                category text NOT NULL,
                seat_alert_id bigint,
                created_at timestamptz NOT NULL,
                used_at timestamptz
            )
            """,
            "CREATE INDEX push_unsubscribes_device ON push_unsubscribes (device_id, created_at)",
            // No foreign key on the device either: removing and adding a device doesn't reset the count.
            """
            CREATE TABLE push_test_notifications (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                device_id bigint NOT NULL,
                requested_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX push_test_notifications_account ON push_test_notifications (account_id, requested_at)",
            "CREATE TABLE push_secrets (name text PRIMARY KEY, value bytea NOT NULL CHECK (length(value) >= 32))",
            // 32 bytes: SHA-256 of three random UUIDs (gen_random_uuid draws on the server's strong
            // random source; pgcrypto is not needed).
            """
            INSERT INTO push_secrets (name, value)
            VALUES ('quickhac-device-key', sha256(decode(
                replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex')))
            """,
        ]),
        PostgresMigration("push.pg.002.confirmation-recipients", [
            """
            CREATE TABLE push_confirmation_sends (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                channel text NOT NULL CHECK (channel IN ('email', 'sms')),
                recipient bytea NOT NULL,
                sent_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX push_confirmation_sends_recipient ON push_confirmation_sends (channel, recipient, sent_at)",
            "CREATE INDEX push_confirmation_sends_time ON push_confirmation_sends (channel, sent_at)",
            """
            INSERT INTO push_secrets (name, value)
            VALUES ('confirmation-recipient-key', sha256(decode(
                replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex')))
            """,
        ]),
        PostgresMigration("push.pg.003.seat-alert-tells", [
            """
            CREATE TABLE push_seat_alert_tells (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                alert_id bigint NOT NULL REFERENCES push_seat_alerts (id) ON DELETE CASCADE,
                class_id bigint NOT NULL,
                told_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX push_seat_alert_tells_alert ON push_seat_alert_tells (alert_id, class_id, told_at)",
        ]),
        // Text messages: the sms channel with its number (E.164), and the numbers that texted
        // STOP, by keyed hash only (as SQLite's push.012).
        PostgresMigration("push.pg.004.sms", [
            "ALTER TABLE push_devices ADD COLUMN phone text",
            "ALTER TABLE push_devices DROP CONSTRAINT push_devices_channel_check",
            """
            ALTER TABLE push_devices ADD CONSTRAINT push_devices_channel_check
                CHECK (channel IN ('apns', 'webpush', 'webhook', 'email', 'sms', 'log'))
            """,
            """
            ALTER TABLE push_devices ADD CONSTRAINT push_devices_sms_check
                CHECK (channel <> 'sms' OR (phone IS NOT NULL AND account_id IS NOT NULL))
            """,
            """
            CREATE TABLE push_sms_mutes (
                recipient bytea PRIMARY KEY,
                muted_at timestamptz NOT NULL
            )
            """,
        ]),
        // Confirmation texts per client network (keyed hash) and new devices; inbound texts
        // already applied, by MessageSid; each number's last applied STOP or START (as
        // SQLite's push.013).
        PostgresMigration("push.pg.005.sms-abuse", [
            "ALTER TABLE push_confirmation_sends ADD COLUMN network bytea",
            "ALTER TABLE push_confirmation_sends ADD COLUMN new_device boolean NOT NULL DEFAULT false",
            "CREATE INDEX push_confirmation_sends_network ON push_confirmation_sends (channel, network, sent_at)",
            """
            CREATE TABLE push_sms_inbound (
                message_sid text PRIMARY KEY,
                received_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX push_sms_inbound_received ON push_sms_inbound (received_at)",
            """
            CREATE TABLE push_sms_keywords (
                recipient bytea PRIMARY KEY,
                keyword text NOT NULL CHECK (keyword IN ('stop', 'start')),
                message_sid text NOT NULL,
                received_at timestamptz NOT NULL
            )
            """,
        ]),
    ]
}
