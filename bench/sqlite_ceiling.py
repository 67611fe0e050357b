#!/usr/bin/env python3
"""The registration writer's loop in Python's sqlite3, beside bench/sqlite-ceiling (which it
copies): the same schema (the gateway's enrollment table with its index and checked foreign
keys, the class row's counters), the same settings (WAL, synchronous=NORMAL, foreign keys,
busy_timeout 5 s, journal_size_limit 64 MiB, wal_autocheckpoint=0 and a checkpointing thread
every 100 ms), the same transaction (BEGIN IMMEDIATE; INSERT; UPDATE; COMMIT, every other one
DELETE; UPDATE). Statements come from the module's statement cache (parsed once, reset and
bound per use); isolation_level=None, so the module adds no BEGIN of its own.

    sqlite_ceiling.py [transactions]     prints python_ceiling_tps=N and the p99
"""
import datetime
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import time

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
students = 50
directory = tempfile.mkdtemp(prefix="sqlite-ceiling-py-")
path = os.path.join(directory, "ceiling.sqlite")
try:
    db = sqlite3.connect(path, isolation_level=None, cached_statements=128)
    db.executescript(f"""
        PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;
        PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = {64 << 20}; PRAGMA wal_autocheckpoint = 0;
        CREATE TABLE registration_students (account_id INTEGER PRIMARY KEY, red_id TEXT NOT NULL UNIQUE);
        CREATE TABLE registration_classes (id INTEGER PRIMARY KEY, seats INTEGER NOT NULL, enrolled INTEGER NOT NULL,
            held INTEGER NOT NULL DEFAULT 0, revision INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE registration_enrollments (
            student_id INTEGER NOT NULL REFERENCES registration_students(account_id) ON DELETE CASCADE,
            class_id INTEGER NOT NULL REFERENCES registration_classes(id) ON DELETE CASCADE,
            enrolled_at DATETIME NOT NULL,
            PRIMARY KEY (student_id, class_id)) WITHOUT ROWID;
        CREATE INDEX registration_enrollments_class ON registration_enrollments(class_id);
        INSERT INTO registration_classes (id, seats, enrolled) VALUES (7030, 100, 0);
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {students - 1})
        INSERT INTO registration_students SELECT i, 600000001 + i FROM n;
        """)

    def checkpointer():
        connection = sqlite3.connect(path, isolation_level=None, timeout=0.1)
        while True:
            time.sleep(0.1)
            try:
                _, frames, _ = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if frames > 4096:
                    connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            except sqlite3.OperationalError:
                pass

    threading.Thread(target=checkpointer, daemon=True).start()
    INSERT = "INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (?, 7030, ?)"
    ADDED = "UPDATE registration_classes SET enrolled = enrolled + 1, revision = revision + 1 WHERE id = 7030"
    DELETE = "DELETE FROM registration_enrollments WHERE student_id = ? AND class_id = 7030"
    REMOVED = "UPDATE registration_classes SET enrolled = enrolled - 1, revision = revision + 1 WHERE id = 7030"
    execute, clock, utc = db.execute, time.perf_counter_ns, datetime.timezone.utc
    latencies = [0] * count
    started = clock()
    for index in range(count):
        student = index // 2 % students
        begun = clock()
        execute("BEGIN IMMEDIATE")
        if index % 2 == 0:
            now = datetime.datetime.now(utc).isoformat(" ", "milliseconds")[:23]
            execute(INSERT, (student, now))
            execute(ADDED)
        else:
            execute(DELETE, (student,))
            execute(REMOVED)
        execute("COMMIT")
        latencies[index] = clock() - begun
    seconds = (clock() - started) / 1e9
    enrolled, rows = db.execute("SELECT (SELECT enrolled FROM registration_classes WHERE id = 7030), (SELECT count(*) FROM registration_enrollments)").fetchone()
    assert enrolled == rows, (enrolled, rows)
    latencies.sort()
    print(f"python sqlite3 loop: {count} transactions in {seconds:.2f} s (SQLite {sqlite3.sqlite_version}, Python {sys.version.split()[0]})")
    print(f"python_ceiling_tps={count / seconds:.0f}")
    print(f"python_transaction_p99_ms={latencies[count * 99 // 100] / 1e6:.3f} python_transaction_max_ms={latencies[-1] / 1e6:.3f}")
finally:
    shutil.rmtree(directory, ignore_errors=True)
