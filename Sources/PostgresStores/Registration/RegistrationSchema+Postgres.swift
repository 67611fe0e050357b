import Registration
import Storage

/// Registration's tables on PostgreSQL: the same as on SQLite after `registration.005`. Seat
/// counters live on the Catalog's class row and move through ``CatalogStoring/adjustSeats``;
/// the rule that nobody is both enrolled in and waitlisted for a class is kept by triggers, as
/// on SQLite.
extension RegistrationSchema {
    /// The module's migrations on PostgreSQL, oldest first (``PostgresSchemaModule``
    /// conformance in SchemaModules+Postgres.swift).
    static let migrationsOnPostgres: [PostgresMigration] = [
        PostgresMigration("registration.pg.001.students-and-enrollments", [
            """
            CREATE TABLE registration_students (
                account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
                red_id text NOT NULL UNIQUE CHECK (length(red_id) = 9),
                first_name text NOT NULL,
                last_name text NOT NULL,
                email text NOT NULL,
                created_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE registration_enrollments (
                student_id bigint NOT NULL REFERENCES registration_students (account_id) ON DELETE CASCADE,
                class_id bigint NOT NULL REFERENCES registration_classes (id) ON DELETE CASCADE,
                enrolled_at timestamptz NOT NULL,
                PRIMARY KEY (student_id, class_id)
            )
            """,
            "CREATE INDEX registration_enrollments_class ON registration_enrollments (class_id)",
            """
            CREATE TABLE registration_waitlist (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                student_id bigint NOT NULL REFERENCES registration_students (account_id) ON DELETE CASCADE,
                class_id bigint NOT NULL REFERENCES registration_classes (id) ON DELETE CASCADE,
                joined_at timestamptz NOT NULL,
                UNIQUE (student_id, class_id)
            )
            """,
            "CREATE INDEX registration_waitlist_line ON registration_waitlist (class_id, id)",
            """
            CREATE TABLE registration_offers (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                class_id bigint NOT NULL REFERENCES registration_classes (id) ON DELETE CASCADE,
                student_id bigint NOT NULL REFERENCES registration_students (account_id) ON DELETE CASCADE,
                offered_at timestamptz NOT NULL,
                expires_at timestamptz NOT NULL,
                state text NOT NULL CHECK (state IN ('open', 'claimed', 'declined', 'expired')),
                closed_at timestamptz
            )
            """,
            "CREATE UNIQUE INDEX registration_offers_open ON registration_offers (class_id, student_id) WHERE state = 'open'",
            "CREATE INDEX registration_offers_student ON registration_offers (student_id) WHERE state = 'open'",
            "CREATE INDEX registration_offers_due ON registration_offers (expires_at) WHERE state = 'open'",
            "CREATE TABLE registration_red_id_roster (red_id text PRIMARY KEY CHECK (length(red_id) = 9), added_at timestamptz NOT NULL)",
            """
            CREATE TABLE registration_seat_states (
                class_id bigint PRIMARY KEY,
                open boolean NOT NULL,
                changed_at timestamptz NOT NULL
            )
            """,
            """
            CREATE FUNCTION registration_enroll_not_waitlisted() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM registration_waitlist WHERE student_id = NEW.student_id AND class_id = NEW.class_id) THEN
                    RAISE EXCEPTION 'registration: student is on the waitlist of this class';
                END IF;
                RETURN NEW;
            END $$
            """,
            """
            CREATE TRIGGER registration_enroll_not_waitlisted BEFORE INSERT ON registration_enrollments
            FOR EACH ROW EXECUTE FUNCTION registration_enroll_not_waitlisted()
            """,
            """
            CREATE FUNCTION registration_waitlist_not_enrolled() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM registration_enrollments WHERE student_id = NEW.student_id AND class_id = NEW.class_id) THEN
                    RAISE EXCEPTION 'registration: student is enrolled in this class';
                END IF;
                RETURN NEW;
            END $$
            """,
            """
            CREATE TRIGGER registration_waitlist_not_enrolled BEFORE INSERT ON registration_waitlist
            FOR EACH ROW EXECUTE FUNCTION registration_waitlist_not_enrolled()
            """,
        ]),
        PostgresMigration("registration.pg.002.registrar-feed", [
            // The registrar's seat feed, as on SQLite (registration.006).
            "CREATE TABLE registration_registrar_sections (class_id bigint PRIMARY KEY, as_of_ms bigint NOT NULL, updated_at timestamptz NOT NULL)",
            """
            CREATE TABLE registration_seat_history (
                id bigserial PRIMARY KEY,
                class_id bigint NOT NULL,
                received_ms bigint NOT NULL,
                as_of_ms bigint NOT NULL,
                seats integer NOT NULL,
                enrolled integer NOT NULL,
                waitlisted integer,
                status integer NOT NULL,
                via text NOT NULL
            )
            """,
            "CREATE INDEX registration_seat_history_class ON registration_seat_history (class_id, received_ms)",
            "CREATE INDEX registration_seat_history_received ON registration_seat_history (received_ms)",
            "CREATE TABLE registration_registrar_deliveries (webhook_id text PRIMARY KEY, received_ms bigint NOT NULL)",
            "CREATE INDEX registration_registrar_deliveries_received ON registration_registrar_deliveries (received_ms)",
            "CREATE TABLE registration_registrar_polls (term text PRIMARY KEY, polled_ms bigint NOT NULL, outcome text NOT NULL)",
        ]),
    ]
}
