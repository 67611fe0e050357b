import GRDB
import Storage

/// The Registration module's tables: the catalog (subjects, courses, classes and their
/// meetings), student profiles, enrollments, waitlists, seat offers and the red id roster.
///
/// Invariants that concurrency could break are in the schema, not only in code:
/// - one enrollment and one waitlist entry per (student, class): primary key and UNIQUE;
/// - a student is never both enrolled in and waitlisted for one class: two triggers;
/// - `enrolled + held <= seats`: a CHECK on the class row, whose counters are maintained by
///   triggers on enrollments and offers, so an over-enrollment aborts its transaction;
/// - one open offer per (class, student): a partial unique index.
public enum RegistrationSchema: SchemaModule {
    public static let migrations: [Migration] = [
        Migration("registration.001.catalog") { db in
            try db.execute(sql: """
                CREATE TABLE registration_subjects (
                    id INTEGER PRIMARY KEY,
                    code TEXT NOT NULL UNIQUE,
                    title TEXT NOT NULL,
                    college TEXT NOT NULL
                );
                CREATE TABLE registration_courses (
                    id INTEGER PRIMARY KEY,
                    subject_id INTEGER NOT NULL REFERENCES registration_subjects(id),
                    number INTEGER NOT NULL CHECK (number >= 0),
                    suffix TEXT NOT NULL DEFAULT '',
                    title TEXT NOT NULL,
                    full_title TEXT NOT NULL,
                    description TEXT NOT NULL DEFAULT '',
                    prerequisite TEXT NOT NULL DEFAULT '',
                    units TEXT NOT NULL DEFAULT '',
                    UNIQUE (subject_id, number, suffix)
                );
                CREATE TABLE registration_classes (
                    id INTEGER PRIMARY KEY,
                    term TEXT NOT NULL,
                    course_id INTEGER NOT NULL REFERENCES registration_courses(id),
                    schedule_number TEXT NOT NULL,
                    section TEXT NOT NULL,
                    instructors TEXT NOT NULL DEFAULT '',
                    meeting_type TEXT NOT NULL DEFAULT '',
                    seats INTEGER NOT NULL CHECK (seats >= 0),
                    base_enrolled INTEGER NOT NULL DEFAULT 0 CHECK (base_enrolled >= 0),
                    base_waitlist INTEGER NOT NULL DEFAULT 0 CHECK (base_waitlist >= 0),
                    enrolled INTEGER NOT NULL DEFAULT 0,
                    held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0),
                    waitlist INTEGER NOT NULL DEFAULT 0 CHECK (waitlist >= 0),
                    revision INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (term, schedule_number),
                    CHECK (enrolled >= base_enrolled),
                    CHECK (enrolled + held <= seats)
                );
                CREATE INDEX registration_classes_course ON registration_classes(course_id);
                CREATE TABLE registration_meetings (
                    class_id INTEGER NOT NULL REFERENCES registration_classes(id) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    days INTEGER NOT NULL DEFAULT 0 CHECK (days BETWEEN 0 AND 127),
                    start_minute INTEGER CHECK (start_minute BETWEEN 0 AND 1439),
                    end_minute INTEGER CHECK (end_minute BETWEEN 1 AND 1440),
                    building TEXT NOT NULL DEFAULT '',
                    room TEXT NOT NULL DEFAULT '',
                    kind TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY (class_id, ordinal),
                    CHECK ((start_minute IS NULL) = (end_minute IS NULL)),
                    CHECK (start_minute IS NULL OR start_minute < end_minute)
                ) WITHOUT ROWID;
                -- Bumped by every catalog change, so a server notices an import made by the CLI.
                CREATE TABLE registration_catalog_version (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    version INTEGER NOT NULL
                );
                INSERT INTO registration_catalog_version (id, version) VALUES (1, 0);
                """)
        },
        Migration("registration.002.students-and-enrollments") { db in
            try db.execute(sql: """
                CREATE TABLE registration_students (
                    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    red_id TEXT NOT NULL UNIQUE CHECK (length(red_id) = 9),
                    first_name TEXT NOT NULL,
                    last_name TEXT NOT NULL,
                    email TEXT NOT NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE TABLE registration_enrollments (
                    student_id INTEGER NOT NULL REFERENCES registration_students(account_id) ON DELETE CASCADE,
                    class_id INTEGER NOT NULL REFERENCES registration_classes(id) ON DELETE CASCADE,
                    enrolled_at DATETIME NOT NULL,
                    PRIMARY KEY (student_id, class_id)
                ) WITHOUT ROWID;
                CREATE INDEX registration_enrollments_class ON registration_enrollments(class_id);
                -- The id orders the line: first come, first served.
                CREATE TABLE registration_waitlist (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    student_id INTEGER NOT NULL REFERENCES registration_students(account_id) ON DELETE CASCADE,
                    class_id INTEGER NOT NULL REFERENCES registration_classes(id) ON DELETE CASCADE,
                    joined_at DATETIME NOT NULL,
                    UNIQUE (student_id, class_id)
                );
                CREATE INDEX registration_waitlist_line ON registration_waitlist(class_id, id);
                CREATE TABLE registration_offers (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    class_id INTEGER NOT NULL REFERENCES registration_classes(id) ON DELETE CASCADE,
                    student_id INTEGER NOT NULL REFERENCES registration_students(account_id) ON DELETE CASCADE,
                    offered_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('open', 'claimed', 'declined', 'expired')),
                    closed_at DATETIME
                );
                CREATE UNIQUE INDEX registration_offers_open ON registration_offers(class_id, student_id) WHERE state = 'open';
                CREATE INDEX registration_offers_student ON registration_offers(student_id) WHERE state = 'open';
                CREATE INDEX registration_offers_due ON registration_offers(expires_at) WHERE state = 'open';
                CREATE TABLE registration_red_id_roster (
                    red_id TEXT PRIMARY KEY CHECK (length(red_id) = 9),
                    added_at DATETIME NOT NULL
                ) WITHOUT ROWID;

                -- Counters on the class row, kept by triggers so no code path can forget them.
                CREATE TRIGGER registration_enrollment_added AFTER INSERT ON registration_enrollments BEGIN
                    UPDATE registration_classes SET enrolled = enrolled + 1, revision = revision + 1 WHERE id = NEW.class_id;
                END;
                CREATE TRIGGER registration_enrollment_removed AFTER DELETE ON registration_enrollments BEGIN
                    UPDATE registration_classes SET enrolled = enrolled - 1, revision = revision + 1 WHERE id = OLD.class_id;
                END;
                CREATE TRIGGER registration_waitlist_added AFTER INSERT ON registration_waitlist BEGIN
                    UPDATE registration_classes SET waitlist = waitlist + 1, revision = revision + 1 WHERE id = NEW.class_id;
                END;
                CREATE TRIGGER registration_waitlist_removed AFTER DELETE ON registration_waitlist BEGIN
                    UPDATE registration_classes SET waitlist = waitlist - 1, revision = revision + 1 WHERE id = OLD.class_id;
                END;
                CREATE TRIGGER registration_offer_opened AFTER INSERT ON registration_offers WHEN NEW.state = 'open' BEGIN
                    UPDATE registration_classes SET held = held + 1, revision = revision + 1 WHERE id = NEW.class_id;
                END;
                CREATE TRIGGER registration_offer_closed AFTER UPDATE OF state ON registration_offers
                WHEN OLD.state = 'open' AND NEW.state <> 'open' BEGIN
                    UPDATE registration_classes SET held = held - 1, revision = revision + 1 WHERE id = NEW.class_id;
                END;
                CREATE TRIGGER registration_offer_deleted AFTER DELETE ON registration_offers WHEN OLD.state = 'open' BEGIN
                    UPDATE registration_classes SET held = held - 1, revision = revision + 1 WHERE id = OLD.class_id;
                END;

                -- Nobody is both enrolled in and waitlisted for the same class.
                CREATE TRIGGER registration_enroll_not_waitlisted BEFORE INSERT ON registration_enrollments
                WHEN EXISTS (SELECT 1 FROM registration_waitlist WHERE student_id = NEW.student_id AND class_id = NEW.class_id)
                BEGIN
                    SELECT RAISE(ABORT, 'registration: student is on the waitlist of this class');
                END;
                CREATE TRIGGER registration_waitlist_not_enrolled BEFORE INSERT ON registration_waitlist
                WHEN EXISTS (SELECT 1 FROM registration_enrollments WHERE student_id = NEW.student_id AND class_id = NEW.class_id)
                BEGIN
                    SELECT RAISE(ABORT, 'registration: student is enrolled in this class');
                END;
                """)
        },
        Migration("registration.003.retired-class-ids") { db in
            // Ids of deleted classes: a new class without an explicit id never gets one of them,
            // so jobs, links and clients that still hold an old id never reach a different class.
            try db.execute(sql: """
                CREATE TABLE registration_retired_class_ids (
                    id INTEGER PRIMARY KEY,
                    retired_at DATETIME NOT NULL
                );
                """)
        },
    ]
}
