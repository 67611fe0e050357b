import Registration
import Storage
import PostgresStorage

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
        // A registration in one round trip (docs/postgres.md, "Registrations take their turns"):
        // each function locks the class's row, then the student's, checks under the locks that
        // what the use case decided on still holds, and makes the change, its counter, its
        // seat state and (when the class opened or closed) its event, in one statement of its
        // own. The rules stay in Swift; these only refuse to write what the rules did not see.
        PostgresMigration("registration.pg.003.one-trip-registration", [
            """
            CREATE TABLE registration_seat_events (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                class_id bigint NOT NULL,
                open boolean NOT NULL,
                open_seats integer NOT NULL,
                created_at timestamptz NOT NULL
            )
            """,
            // The seat state after a change, and its event when the class opened or closed:
            // `was_open` is the caller's view of a class never recorded (nil: unknown, no event).
            """
            CREATE FUNCTION registration_seat_moved(p_class bigint, p_open boolean, p_open_seats integer, p_now timestamptz, p_was_open boolean)
            RETURNS boolean LANGUAGE plpgsql AS $$
            DECLARE
                recorded boolean;
            BEGIN
                SELECT s.open INTO recorded FROM registration_seat_states s WHERE s.class_id = p_class;
                IF recorded IS DISTINCT FROM p_open THEN
                    INSERT INTO registration_seat_states (class_id, open, changed_at) VALUES (p_class, p_open, p_now)
                    ON CONFLICT (class_id) DO UPDATE SET open = excluded.open, changed_at = excluded.changed_at;
                END IF;
                IF COALESCE(recorded, p_was_open) IS NOT NULL AND COALESCE(recorded, p_was_open) <> p_open THEN
                    INSERT INTO registration_seat_events (class_id, open, open_seats, created_at) VALUES (p_class, p_open, p_open_seats, p_now);
                    RETURN true;
                END IF;
                RETURN false;
            END $$
            """,
            // What a registration decides on, in one statement (the class's counts and term, the
            // catalog version, the student's classes, line and offer); no row without the class.
            """
            CREATE FUNCTION registration_enrollment_facts(p_student bigint, p_class bigint)
            RETURNS TABLE (term text, seats integer, enrolled integer, held integer, status integer, seats_from text, catalog_version bigint,
                           enrolled_classes bigint[], waitlisted boolean, holds_offer boolean)
            LANGUAGE sql STABLE AS $$
                SELECT c.term, c.seats, c.enrolled, c.held, c.status, t.seats_from,
                    (SELECT v.version FROM registration_catalog_version v WHERE v.id = 1),
                    COALESCE((SELECT array_agg(e.class_id ORDER BY e.class_id) FROM registration_enrollments e WHERE e.student_id = p_student), '{}'),
                    EXISTS (SELECT 1 FROM registration_waitlist w WHERE w.student_id = p_student AND w.class_id = c.id),
                    EXISTS (SELECT 1 FROM registration_offers o WHERE o.student_id = p_student AND o.class_id = c.id AND o.state = 'open')
                FROM registration_classes c LEFT JOIN catalog_terms t ON t.id = c.term WHERE c.id = p_class
            $$
            """,
            // Enrolls a student the use case found eligible on `p_enrolled` (their classes, by id)
            // and catalog version `p_version`: 'stale' when either changed, or the class holds
            // seats, or the student is in its line or holds its offer (the use case then runs
            // the whole rules in a transaction); 'full' when no seat is open; else 'done'.
            """
            CREATE FUNCTION registration_enroll(
                p_student bigint, p_class bigint, p_now timestamptz, p_enrolled bigint[], p_version bigint, p_was_open boolean
            ) RETURNS TABLE (outcome text, seats integer, enrolled integer, held integer, waitlist integer, revision bigint, status integer, event boolean)
            LANGUAGE plpgsql AS $$
            DECLARE
                c registration_classes%ROWTYPE;
                open_seats integer;
            BEGIN
                SELECT * INTO c FROM registration_classes k WHERE k.id = p_class FOR NO KEY UPDATE;
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 'stale'::text, 0, 0, 0, 0, 0::bigint, 0, false;
                    RETURN;
                END IF;
                PERFORM 1 FROM registration_students s WHERE s.account_id = p_student FOR NO KEY UPDATE;
                IF c.held <> 0
                    OR (SELECT v.version FROM registration_catalog_version v WHERE v.id = 1) IS DISTINCT FROM p_version
                    OR COALESCE((SELECT array_agg(e.class_id ORDER BY e.class_id) FROM registration_enrollments e WHERE e.student_id = p_student), '{}') <> p_enrolled
                    OR EXISTS (SELECT 1 FROM registration_waitlist w WHERE w.student_id = p_student AND w.class_id = p_class)
                    OR EXISTS (SELECT 1 FROM registration_offers o WHERE o.student_id = p_student AND o.class_id = p_class AND o.state = 'open')
                THEN
                    RETURN QUERY SELECT 'stale'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status, false;
                    RETURN;
                END IF;
                IF c.status <> 0 OR c.enrolled + c.held >= c.seats THEN
                    RETURN QUERY SELECT 'full'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status, false;
                    RETURN;
                END IF;
                INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (p_student, p_class, p_now);
                UPDATE registration_classes k SET enrolled = k.enrolled + 1, revision = k.revision + 1 WHERE k.id = p_class RETURNING * INTO c;
                open_seats := CASE WHEN c.status = 0 THEN GREATEST(0, c.seats - c.enrolled - c.held) ELSE 0 END;
                RETURN QUERY SELECT 'done'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status,
                    registration_seat_moved(p_class, open_seats > 0, open_seats, p_now, p_was_open);
            END $$
            """,
            // Drops a student from a class with no line and no held seat: 'unknown' (no such
            // class, or not of `p_term`), 'registrar' (a registrar term's class), 'cold' (the
            // class has a line or holds seats: the use case runs the waitlist policy in a
            // transaction), 'not-enrolled', else 'done'.
            """
            CREATE FUNCTION registration_drop(p_student bigint, p_class bigint, p_term text, p_now timestamptz, p_was_open boolean)
            RETURNS TABLE (outcome text, seats integer, enrolled integer, held integer, waitlist integer, revision bigint, status integer, event boolean)
            LANGUAGE plpgsql AS $$
            DECLARE
                c registration_classes%ROWTYPE;
                source text;
                open_seats integer;
            BEGIN
                SELECT * INTO c FROM registration_classes k WHERE k.id = p_class FOR NO KEY UPDATE;
                IF NOT FOUND OR (p_term IS NOT NULL AND c.term <> p_term) THEN
                    RETURN QUERY SELECT 'unknown'::text, 0, 0, 0, 0, 0::bigint, 0, false;
                    RETURN;
                END IF;
                SELECT t.seats_from INTO source FROM catalog_terms t WHERE t.id = c.term;
                IF source = 'registrar' THEN
                    RETURN QUERY SELECT 'registrar'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status, false;
                    RETURN;
                END IF;
                PERFORM 1 FROM registration_students s WHERE s.account_id = p_student FOR NO KEY UPDATE;
                IF c.held <> 0 OR EXISTS (SELECT 1 FROM registration_waitlist w WHERE w.class_id = p_class) THEN
                    RETURN QUERY SELECT 'cold'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status, false;
                    RETURN;
                END IF;
                DELETE FROM registration_enrollments e WHERE e.student_id = p_student AND e.class_id = p_class;
                IF NOT FOUND THEN
                    RETURN QUERY SELECT 'not-enrolled'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status, false;
                    RETURN;
                END IF;
                UPDATE registration_classes k SET enrolled = k.enrolled - 1, revision = k.revision + 1 WHERE k.id = p_class RETURNING * INTO c;
                open_seats := CASE WHEN c.status = 0 THEN GREATEST(0, c.seats - c.enrolled - c.held) ELSE 0 END;
                RETURN QUERY SELECT 'done'::text, c.seats, c.enrolled, c.held, c.waitlist, c.revision, c.status,
                    registration_seat_moved(p_class, open_seats > 0, open_seats, p_now, p_was_open);
            END $$
            """,
        ]),
        PostgresMigration("registration.pg.004.eligibility", [
            // Who may register, as on SQLite (registration.008): records, windows and
            // requirements as the API's JSON text, holds and overrides a row each.
            """
            CREATE TABLE registration_academic_records (
                account_id bigint PRIMARY KEY,
                record text NOT NULL,
                updated_by bigint NOT NULL,
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE registration_holds (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL,
                code text NOT NULL,
                reason text NOT NULL,
                blocks text NOT NULL,
                until timestamptz,
                created_by bigint NOT NULL,
                created_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX registration_holds_by_account ON registration_holds (account_id)",
            """
            CREATE TABLE registration_term_windows (
                term text PRIMARY KEY,
                windows text NOT NULL,
                updated_by bigint NOT NULL,
                updated_at timestamptz NOT NULL
            )
            """,
            """
            CREATE TABLE registration_course_requirements (
                term text NOT NULL,
                course text NOT NULL,
                requirements text NOT NULL,
                updated_by bigint NOT NULL,
                updated_at timestamptz NOT NULL,
                PRIMARY KEY (term, course)
            )
            """,
            """
            CREATE TABLE registration_overrides (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                account_id bigint NOT NULL,
                class_id bigint NOT NULL,
                rules text NOT NULL,
                created_by bigint NOT NULL,
                created_at timestamptz NOT NULL
            )
            """,
            "CREATE INDEX registration_overrides_by_account ON registration_overrides (account_id)",
            """
            CREATE TABLE registration_prerequisite_exceptions (
                account_id bigint NOT NULL,
                class_id bigint NOT NULL,
                term text NOT NULL,
                course text NOT NULL,
                missing text NOT NULL,
                detected_at timestamptz NOT NULL,
                PRIMARY KEY (account_id, class_id)
            )
            """,
            "CREATE INDEX registration_prerequisite_exceptions_by_term ON registration_prerequisite_exceptions (term, account_id)",
            // The class a student drops when this one's seat comes to them (promotion, a claimed offer).
            "ALTER TABLE registration_waitlist ADD COLUMN drop_if_enrolled bigint",
            // Everything the rules read about a student in a term, in one statement: the record,
            // the holds and overrides (JSON arrays, dates as epoch seconds), the term's windows,
            // unit limit, time zone and duplicate rule (the Catalog's term row), the requirements of the
            // courses asked about (a JSON object by course).
            """
            CREATE FUNCTION registration_eligibility_facts(p_student bigint, p_term text, p_courses text[])
            RETURNS TABLE (
                record text, holds text, windows text, max_units double precision, time_zone text, requirements text, overrides text,
                refuse_duplicate_courses boolean
            )
            LANGUAGE sql STABLE AS $$
                SELECT
                    (SELECT r.record FROM registration_academic_records r WHERE r.account_id = p_student),
                    (SELECT json_agg(json_build_object('id', h.id, 'code', h.code, 'reason', h.reason, 'blocks', h.blocks,
                        'until', extract(epoch FROM h.until), 'createdBy', h.created_by, 'createdAt', extract(epoch FROM h.created_at)) ORDER BY h.id)::text
                     FROM registration_holds h WHERE h.account_id = p_student),
                    (SELECT w.windows FROM registration_term_windows w WHERE w.term = p_term),
                    t.max_units, t.time_zone,
                    (SELECT json_object_agg(q.course, q.requirements::json)::text
                     FROM registration_course_requirements q WHERE q.term = p_term AND q.course = ANY (p_courses)),
                    (SELECT json_agg(json_build_object('id', o.id, 'classId', o.class_id, 'rules', o.rules, 'createdBy', o.created_by,
                        'createdAt', extract(epoch FROM o.created_at)) ORDER BY o.id)::text
                     FROM registration_overrides o WHERE o.account_id = p_student),
                    t.refuse_duplicate_courses
                FROM (SELECT 1) AS one LEFT JOIN catalog_terms t ON t.id = p_term
            $$
            """,
        ]),
        // Students who let their friends see their enrollments, as on SQLite (registration.009).
        PostgresMigration("registration.pg.005.enrollment-sharing", [
            """
            CREATE TABLE registration_enrollment_sharing (
                account_id bigint PRIMARY KEY REFERENCES registration_students (account_id) ON DELETE CASCADE,
                since timestamptz NOT NULL
            )
            """,
        ]),
    ]
}
