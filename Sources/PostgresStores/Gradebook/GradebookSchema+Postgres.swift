import Gradebook
import Storage
import PostgresStorage

/// Gradebook's tables on PostgreSQL: sources, students' and devices' upstream accounts (their
/// passwords sealed by the vault, never in the clear), snapshots and source health.
extension GradebookSchema {
    /// The module's migrations on PostgreSQL, oldest first (``PostgresSchemaModule``
    /// conformance in SchemaModules+Postgres.swift).
    static let migrationsOnPostgres: [PostgresMigration] = [
        PostgresMigration("gradebook.pg.001.sources-accounts-snapshots", [
            """
            CREATE TABLE gradebook_sources (
                id bigint PRIMARY KEY CHECK (id BETWEEN 1 AND 2147483647),
                name text NOT NULL,
                kind text NOT NULL,
                base_url text NOT NULL,
                auth_style text NOT NULL,
                poll_interval_seconds integer NOT NULL,
                max_concurrency integer NOT NULL,
                requests_per_minute integer NOT NULL,
                development boolean NOT NULL DEFAULT false,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE gradebook_accounts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                source_id bigint NOT NULL REFERENCES gradebook_sources (id) ON DELETE CASCADE,
                username text NOT NULL,
                sealed_password text NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                UNIQUE (account_id, source_id, username)
            )
            """,
            "CREATE INDEX gradebook_accounts_source ON gradebook_accounts (source_id)",
            """
            CREATE TABLE gradebook_device_accounts (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                device_key text NOT NULL,
                source_id bigint NOT NULL REFERENCES gradebook_sources (id) ON DELETE CASCADE,
                username text NOT NULL,
                sealed_password text NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                UNIQUE (device_key, username)
            )
            """,
            """
            CREATE TABLE gradebook_snapshots (
                device_account_id bigint NOT NULL REFERENCES gradebook_device_accounts (id) ON DELETE CASCADE,
                student text NOT NULL,
                snapshot text NOT NULL,
                digest text NOT NULL,
                polled_at timestamptz NOT NULL,
                PRIMARY KEY (device_account_id, student)
            )
            """,
            """
            CREATE TABLE gradebook_source_health (
                source_id bigint PRIMARY KEY REFERENCES gradebook_sources (id) ON DELETE CASCADE,
                consecutive_failures integer NOT NULL DEFAULT 0,
                last_success_at timestamptz,
                last_failure_at timestamptz,
                last_error text,
                backoff_until timestamptz,
                polls bigint NOT NULL DEFAULT 0,
                failures bigint NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE gradebook_account_snapshots (
                gradebook_account_id bigint PRIMARY KEY REFERENCES gradebook_accounts (id) ON DELETE CASCADE,
                snapshot text NOT NULL,
                digest text NOT NULL,
                polled_at timestamptz NOT NULL
            )
            """,
        ]),
        PostgresMigration("gradebook.pg.002.canvas-oauth", [
            "ALTER TABLE gradebook_sources ADD COLUMN oauth_client_id text",
            "ALTER TABLE gradebook_sources ADD COLUMN oauth_client_secret text",
            "ALTER TABLE gradebook_accounts ADD COLUMN credential_kind text NOT NULL DEFAULT 'password'",
            "ALTER TABLE gradebook_accounts ADD COLUMN status text NOT NULL DEFAULT 'ok'",
        ]),
        PostgresMigration("gradebook.pg.003.canvas-oauth-flows", [
            """
            CREATE TABLE gradebook_oauth_flows (
                flow_key bytea PRIMARY KEY,
                owner_account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                source_id bigint NOT NULL REFERENCES gradebook_sources (id) ON DELETE CASCADE,
                return_to text NOT NULL,
                expires_at timestamptz NOT NULL,
                started_at timestamptz,
                code_hash bytea UNIQUE,
                sealed_grant text,
                canvas_user_id text,
                canvas_user_name text,
                completes_by timestamptz
            )
            """,
            "CREATE INDEX gradebook_oauth_flows_owner ON gradebook_oauth_flows (owner_account_id)",
            "CREATE INDEX gradebook_oauth_flows_expiry ON gradebook_oauth_flows (expires_at)",
        ]),
        // A Moodle source's web service (login/token.php's `service`); NULL for other kinds.
        PostgresMigration("gradebook.pg.004.moodle-service", [
            "ALTER TABLE gradebook_sources ADD COLUMN moodle_service text",
        ]),
    ]
}
