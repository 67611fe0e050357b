import Catalog
import GRDB
import Registration
import Storage
import SQLiteStorage

/// ``RegistrationSchema``'s migrations on SQLite.
extension RegistrationSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
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
        Migration("registration.004.seat-counters-through-catalog") { db in
            // The class row's counters belong to the Catalog module; Registration now moves them
            // through Catalog's `CatalogStoring.adjustSeats` in the same transaction instead of with triggers on
            // its tables that wrote Catalog's table. The class row's CHECK still caps seats.
            try db.execute(sql: """
                DROP TRIGGER registration_enrollment_added;
                DROP TRIGGER registration_enrollment_removed;
                DROP TRIGGER registration_waitlist_added;
                DROP TRIGGER registration_waitlist_removed;
                DROP TRIGGER registration_offer_opened;
                DROP TRIGGER registration_offer_closed;
                DROP TRIGGER registration_offer_deleted;
                """)
        },
        Migration("registration.005.seat-states") { db in
            // Whether each class was last open to newcomers, so a change of seats that opens or
            // closes a class is reported once (`push.class-opened` / `push.class-closed`). No row:
            // never recorded (the in-memory catalog tells the state before the first change).
            // Rows outlive a deleted class (recorded closed), so a class that comes back opens.
            try db.execute(sql: """
                CREATE TABLE registration_seat_states (
                    class_id INTEGER PRIMARY KEY,
                    open INTEGER NOT NULL CHECK (open IN (0, 1)),
                    changed_at DATETIME NOT NULL
                );
                """)
        },
        Migration("registration.006.registrar-feed") { db in
            // The registrar's seat feed: the `asOf` of the last update applied to each class
            // (ms since 1970, older updates are ignored), each class's seat history (pruned
            // after a retention period), webhook ids already applied, and each term's last poll.
            try db.execute(sql: """
                CREATE TABLE registration_registrar_sections (
                    class_id INTEGER PRIMARY KEY,
                    as_of_ms INTEGER NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE registration_seat_history (
                    id INTEGER PRIMARY KEY,
                    class_id INTEGER NOT NULL,
                    received_ms INTEGER NOT NULL,
                    as_of_ms INTEGER NOT NULL,
                    seats INTEGER NOT NULL,
                    enrolled INTEGER NOT NULL,
                    waitlisted INTEGER,
                    status INTEGER NOT NULL,
                    via TEXT NOT NULL
                );
                CREATE INDEX registration_seat_history_class ON registration_seat_history(class_id, received_ms);
                CREATE INDEX registration_seat_history_received ON registration_seat_history(received_ms);
                CREATE TABLE registration_registrar_deliveries (
                    webhook_id TEXT PRIMARY KEY NOT NULL,
                    received_ms INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX registration_registrar_deliveries_received ON registration_registrar_deliveries(received_ms);
                CREATE TABLE registration_registrar_polls (
                    term TEXT PRIMARY KEY NOT NULL,
                    polled_ms INTEGER NOT NULL,
                    outcome TEXT NOT NULL
                ) WITHOUT ROWID;
                """)
        },
        Migration("registration.007.seat-events") { db in
            // Open and close events written by a registration's own statement, queued as jobs
            // once it committed (the outbox; on PostgreSQL the one-trip registration writes it).
            try db.execute(sql: """
                CREATE TABLE registration_seat_events (
                    id INTEGER PRIMARY KEY,
                    class_id INTEGER NOT NULL,
                    open INTEGER NOT NULL,
                    open_seats INTEGER NOT NULL,
                    created_at DATETIME NOT NULL
                );
                """)
        },
        Migration("registration.008.eligibility") { db in
            // Who may register (docs/registration.md, "Eligibility"): records, windows and
            // requirements as the API's JSON, holds and overrides a row each; every row keeps
            // who set it and when. A course is stored as `CS 540` (upper case, single spaces).
            try db.execute(sql: """
                CREATE TABLE registration_academic_records (
                    account_id INTEGER PRIMARY KEY,
                    record TEXT NOT NULL,
                    updated_by INTEGER NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE registration_holds (
                    id INTEGER PRIMARY KEY,
                    account_id INTEGER NOT NULL,
                    code TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    blocks TEXT NOT NULL,
                    until DATETIME,
                    created_by INTEGER NOT NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX registration_holds_by_account ON registration_holds (account_id);
                CREATE TABLE registration_term_windows (
                    term TEXT PRIMARY KEY,
                    windows TEXT NOT NULL,
                    updated_by INTEGER NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE registration_course_requirements (
                    term TEXT NOT NULL,
                    course TEXT NOT NULL,
                    requirements TEXT NOT NULL,
                    updated_by INTEGER NOT NULL,
                    updated_at DATETIME NOT NULL,
                    PRIMARY KEY (term, course)
                );
                CREATE TABLE registration_overrides (
                    id INTEGER PRIMARY KEY,
                    account_id INTEGER NOT NULL,
                    class_id INTEGER NOT NULL,
                    rules TEXT NOT NULL,
                    created_by INTEGER NOT NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX registration_overrides_by_account ON registration_overrides (account_id);
                CREATE TABLE registration_prerequisite_exceptions (
                    account_id INTEGER NOT NULL,
                    class_id INTEGER NOT NULL,
                    term TEXT NOT NULL,
                    course TEXT NOT NULL,
                    missing TEXT NOT NULL,
                    detected_at DATETIME NOT NULL,
                    PRIMARY KEY (account_id, class_id)
                );
                CREATE INDEX registration_prerequisite_exceptions_by_term ON registration_prerequisite_exceptions (term, account_id);
                ALTER TABLE registration_waitlist ADD COLUMN drop_if_enrolled INTEGER;
                """)
        },
        Migration("registration.009.enrollment-sharing") { db in
            // Students who let their friends see the classes they are enrolled in (a row each;
            // none by default, so enrollments stay private).
            try db.execute(sql: """
                CREATE TABLE registration_enrollment_sharing (
                    account_id INTEGER PRIMARY KEY REFERENCES registration_students(account_id) ON DELETE CASCADE,
                    since DATETIME NOT NULL
                );
                """)
        },
    ]
}
