import GRDB
import Scheduling
import Storage
import SQLiteStorage

/// ``SchedulingSchema``'s migrations on SQLite.
extension SchedulingSchema {
    /// The module's migrations on SQLite, oldest first (``SchemaModule`` conformance in
    /// SchemaModules+SQLite.swift).
    static let migrationsOnSQLite: [Migration] = [
        Migration("scheduling.001.ratings-schedules-feeds") { db in
            try db.execute(sql: """
                CREATE TABLE scheduling_course_ratings (
                    course_key TEXT PRIMARY KEY,
                    course TEXT NOT NULL,
                    average_gpa REAL NOT NULL CHECK (average_gpa BETWEEN 0 AND 4),
                    updated_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE scheduling_instructor_ratings (
                    name_key TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    rating REAL NOT NULL CHECK (rating BETWEEN 0 AND 5),
                    updated_at DATETIME NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE scheduling_saved_schedules (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    term TEXT NOT NULL,
                    class_ids TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE INDEX scheduling_saved_schedules_account ON scheduling_saved_schedules(account_id, id);
                -- One secret feed per account; only the SHA-256 of its token is kept.
                CREATE TABLE scheduling_calendar_feeds (
                    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at DATETIME NOT NULL
                );
                -- What an exported calendar last contained (a hash of its inputs), when that
                -- changed and how often: DTSTAMP, SEQUENCE, ETag and Last-Modified come from here.
                CREATE TABLE scheduling_calendar_revisions (
                    calendar TEXT PRIMARY KEY,
                    content_hash TEXT NOT NULL,
                    changed_at DATETIME NOT NULL,
                    sequence INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                """)
        },
        Migration("scheduling.002.schedule-feeds") { db in
            try db.execute(sql: """
                -- One secret feed per saved schedule; only the SHA-256 of its token is kept. The
                -- owner is repeated so that a feed is looked up and revoked by owner too; deleting
                -- the schedule (or the account) deletes its feed.
                CREATE TABLE scheduling_schedule_feeds (
                    schedule_id INTEGER PRIMARY KEY REFERENCES scheduling_saved_schedules(id) ON DELETE CASCADE,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX scheduling_schedule_feeds_account ON scheduling_schedule_feeds(account_id);
                """)
        },
        Migration("scheduling.003.share-links") { db in
            try db.execute(sql: """
                -- Links that show one saved schedule to whoever holds them, until revoked or
                -- expired (NULL: never). Only the SHA-256 of each token is kept; the owner is
                -- repeated so that links are listed and revoked by owner; deleting the schedule
                -- (or the account) deletes its links.
                CREATE TABLE scheduling_share_links (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    schedule_id INTEGER NOT NULL REFERENCES scheduling_saved_schedules(id) ON DELETE CASCADE,
                    account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME
                );
                CREATE INDEX scheduling_share_links_schedule ON scheduling_share_links(schedule_id, id);
                CREATE INDEX scheduling_share_links_account ON scheduling_share_links(account_id);
                """)
        },
        Migration("scheduling.004.schedule-visibility") { db in
            // Who sees a saved schedule besides its owner: nobody (every schedule saved
            // before), or the owner's friends.
            try db.execute(sql: """
                ALTER TABLE scheduling_saved_schedules ADD COLUMN visibility TEXT NOT NULL DEFAULT 'private'
                    CHECK (visibility IN ('private', 'friends'));
                CREATE INDEX scheduling_saved_schedules_friends ON scheduling_saved_schedules(account_id, term) WHERE visibility = 'friends';
                """)
        },
    ]
}
