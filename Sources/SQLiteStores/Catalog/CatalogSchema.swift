import Catalog
import GRDB
import Storage
import SQLiteStorage

/// ``CatalogSchema``'s migrations on SQLite.
extension CatalogSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
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
        Migration("catalog.005.terms") { db in
            // Academic terms: the catalog's term strings (`registration_classes.term`) with
            // their instruction days, time zone, holidays and transfer days. Dates are
            // `YYYY-MM-DD` text (they sort as dates); holidays and transfer days are the JSON
            // arrays of the API (`[{"date","name"} | {"from","to","name"}]`, `[{"date","follows"}]`).
            try db.execute(sql: """
                CREATE TABLE catalog_terms (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    first_day TEXT NOT NULL,
                    last_day TEXT NOT NULL,
                    time_zone TEXT NOT NULL,
                    holidays TEXT NOT NULL DEFAULT '[]',
                    transfer_days TEXT NOT NULL DEFAULT '[]',
                    CHECK (first_day <= last_day)
                ) WITHOUT ROWID;
                CREATE INDEX catalog_terms_first_day ON catalog_terms(first_day, id);
                """)
        },
        Migration("catalog.006.components") { db in
            // A section's component of a multi-component course (`Lecture`, `Lab`) and the
            // sections of the same course and term it goes with, comma-separated; empty for
            // sections that are whole on their own (every class before this migration).
            try db.execute(sql: """
                ALTER TABLE registration_classes ADD COLUMN component TEXT NOT NULL DEFAULT '';
                ALTER TABLE registration_classes ADD COLUMN links TEXT NOT NULL DEFAULT '';
                """)
        },
        Migration("catalog.007.registrar-seats") { db in
            // A term's seats may come from the campus registrar (`seats_from`), pushed to the
            // gateway or published at `registrar_feed_url`. A class the registrar closed or
            // cancelled has no open seat whatever its counts (`status`: 0 open, 1 closed,
            // 2 cancelled). A term's subjects keep the titles that term's catalog gave them
            // (`catalog_term_subjects`): importing another term no longer renames them.
            try db.execute(sql: """
                ALTER TABLE catalog_terms ADD COLUMN seats_from TEXT NOT NULL DEFAULT 'gateway'
                    CHECK (seats_from IN ('gateway', 'registrar'));
                ALTER TABLE catalog_terms ADD COLUMN registrar_feed_url TEXT;
                ALTER TABLE catalog_terms ADD COLUMN registrar_poll_seconds INTEGER;
                ALTER TABLE registration_classes ADD COLUMN status INTEGER NOT NULL DEFAULT 0 CHECK (status BETWEEN 0 AND 2);
                CREATE TABLE catalog_term_subjects (
                    term TEXT NOT NULL,
                    subject_id INTEGER NOT NULL REFERENCES registration_subjects(id),
                    title TEXT NOT NULL,
                    college TEXT NOT NULL,
                    PRIMARY KEY (term, subject_id)
                ) WITHOUT ROWID;
                INSERT INTO catalog_term_subjects (term, subject_id, title, college)
                SELECT DISTINCT c.term, co.subject_id, s.title, s.college
                FROM registration_classes c JOIN registration_courses co ON co.id = c.course_id
                JOIN registration_subjects s ON s.id = co.subject_id;
                """)
        },
        Migration("catalog.008.term-registration-rules") { db in
            // The most units a student may register for in the term (NULL: no limit), and
            // whether a second section of a course the student is in is refused (0: allowed).
            try db.execute(sql: """
                ALTER TABLE catalog_terms ADD COLUMN max_units REAL CHECK (max_units IS NULL OR max_units > 0);
                ALTER TABLE catalog_terms ADD COLUMN refuse_duplicate_courses INTEGER NOT NULL DEFAULT 0 CHECK (refuse_duplicate_courses IN (0, 1));
                """)
        },
    ]
}
