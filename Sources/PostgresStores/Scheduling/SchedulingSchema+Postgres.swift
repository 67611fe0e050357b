import Scheduling
import Storage
import PostgresStorage

/// Scheduling's tables on PostgreSQL: ratings, saved schedules (class ids as a `bigint[]`),
/// calendar feeds (token hashes only) and calendar revisions.
extension SchedulingSchema {
    /// The module's migrations on PostgreSQL, oldest first (``PostgresSchemaModule``
    /// conformance in SchemaModules+Postgres.swift).
    static let migrationsOnPostgres: [PostgresMigration] = [
        PostgresMigration("scheduling.pg.001.ratings-schedules-feeds", [
            """
            CREATE TABLE scheduling_course_ratings (
                course_key text PRIMARY KEY,
                course text NOT NULL,
                average_gpa double precision NOT NULL CHECK (average_gpa BETWEEN 0 AND 4),
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE scheduling_instructor_ratings (
                name_key text PRIMARY KEY,
                name text NOT NULL,
                rating double precision NOT NULL CHECK (rating BETWEEN 0 AND 5),
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE scheduling_saved_schedules (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                name text NOT NULL,
                term text NOT NULL,
                class_ids bigint[] NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX scheduling_saved_schedules_account ON scheduling_saved_schedules (account_id, id)",
            """
            CREATE TABLE scheduling_calendar_feeds (
                account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                token_hash bytea NOT NULL UNIQUE,
                created_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE scheduling_calendar_revisions (
                calendar text PRIMARY KEY,
                content_hash text NOT NULL,
                changed_at timestamptz NOT NULL,
                sequence integer NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE scheduling_schedule_feeds (
                schedule_id bigint PRIMARY KEY REFERENCES scheduling_saved_schedules (id) ON DELETE CASCADE,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                token_hash bytea NOT NULL UNIQUE,
                created_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX scheduling_schedule_feeds_account ON scheduling_schedule_feeds (account_id)",
        ]),
        PostgresMigration("scheduling.pg.002.share-links", [
            """
            CREATE TABLE scheduling_share_links (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                schedule_id bigint NOT NULL REFERENCES scheduling_saved_schedules (id) ON DELETE CASCADE,
                account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
                token_hash bytea NOT NULL UNIQUE,
                created_at timestamptz NOT NULL,
                expires_at timestamptz
            )
            """,
            "CREATE INDEX scheduling_share_links_schedule ON scheduling_share_links (schedule_id, id)",
            "CREATE INDEX scheduling_share_links_account ON scheduling_share_links (account_id)",
        ]),
        PostgresMigration("scheduling.pg.003.schedule-visibility", [
            """
            ALTER TABLE scheduling_saved_schedules ADD COLUMN visibility text NOT NULL DEFAULT 'private'
                CHECK (visibility IN ('private', 'friends'))
            """,
            "CREATE INDEX scheduling_saved_schedules_friends ON scheduling_saved_schedules (account_id, term) WHERE visibility = 'friends'",
        ]),
    ]
}
