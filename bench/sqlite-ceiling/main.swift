import Foundation
import GRDBSQLite

// The ceiling for the registration writer (bench/registration-bench.sh): the fastest honest
// loop of what a registration writes, on the C API of the SQLite library the gateway links
// (GRDB's GRDBSQLite, the system libsqlite3), with nothing else around it.
//  - The gateway's settings (Sources/Storage/GatewayDatabase.swift): WAL, synchronous=NORMAL,
//    foreign keys on, a 5 s busy timeout, journal_size_limit 64 MiB, wal_autocheckpoint=0 with
//    checkpoints on a thread of their own every 100 ms (PASSIVE, then RESTART past 4,096
//    frames, as WALCheckpointer does); a fresh file.
//  - The gateway's enrollment table (registration_enrollments: WITHOUT ROWID, its primary key,
//    its index on class_id, its two foreign keys, checked) and the class row's counters.
//  - Every statement prepared once (sqlite3_prepare_v3, SQLITE_PREPARE_PERSISTENT), then reset
//    and bound per iteration; one connection, no mutex (SQLITE_OPEN_NOMUTEX), one thread.
//  - Per iteration one transaction: BEGIN IMMEDIATE; INSERT the enrollment (its enrolled_at a
//    text timestamp made per row, as GRDB stores a Date); UPDATE the class's enrolled and
//    revision; COMMIT. Every other iteration drops it again: DELETE; UPDATE.
// Usage: sqlite-ceiling [transactions] [thread|inline] (default 100000 thread); prints
// `ceiling_tps=N` and the transactions' p99 and longest time. `inline` leaves checkpoints to
// SQLite's default (inside the commit that passes 1,000 pages of log), to show what that costs
// where disk flushes are slow (bench/slow-fsync).
let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
let inlineCheckpoints = CommandLine.arguments.dropFirst(2).first == "inline"
let students: Int64 = 50
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-ceiling-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let path = directory.appendingPathComponent("ceiling.sqlite").path

func check(_ rc: Int32, _ db: OpaquePointer?, _ what: String, expect: Int32 = SQLITE_OK) {
    guard rc == expect else {
        fatalError("\(what): \(rc) \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "")")
    }
}
func open(_ path: String) -> OpaquePointer? {
    var db: OpaquePointer?
    check(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil), db, "open")
    return db
}
func exec(_ db: OpaquePointer?, _ sql: String) { check(sqlite3_exec(db, sql, nil, nil, nil), db, sql) }
func prepare(_ db: OpaquePointer?, _ sql: String) -> OpaquePointer? {
    var statement: OpaquePointer?
    check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), db, sql)
    return statement
}

let db = open(path)
exec(db, """
    PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = \(64 << 20);
    """)
if !inlineCheckpoints { exec(db, "PRAGMA wal_autocheckpoint = 0") }
exec(db, """
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
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(students - 1))
    INSERT INTO registration_students SELECT i, 600000001 + i FROM n;
    """)

// As WALCheckpointer does: a connection of its own, a round every 100 ms.
func startCheckpointer(path: String) {
    Thread.detachNewThread { [path] in
        let connection = open(path)
        sqlite3_busy_timeout(connection, 100)
        while true {
            Thread.sleep(forTimeInterval: 0.1)
            var frames: Int32 = 0, copied: Int32 = 0
            if sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK, frames > 4096 {
                _ = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_RESTART, &frames, &copied)
            }
        }
    }
}
if !inlineCheckpoints { startCheckpointer(path: path) }

let begin = prepare(db, "BEGIN IMMEDIATE")
let commit = prepare(db, "COMMIT")
let insert = prepare(db, "INSERT INTO registration_enrollments (student_id, class_id, enrolled_at) VALUES (?, 7030, ?)")
let added = prepare(db, "UPDATE registration_classes SET enrolled = enrolled + 1, revision = revision + 1 WHERE id = 7030")
let delete = prepare(db, "DELETE FROM registration_enrollments WHERE student_id = ? AND class_id = 7030")
let removed = prepare(db, "UPDATE registration_classes SET enrolled = enrolled - 1, revision = revision + 1 WHERE id = 7030")
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
func step(_ statement: OpaquePointer?) {
    check(sqlite3_step(statement), sqlite3_db_handle(statement), String(cString: sqlite3_sql(statement)), expect: SQLITE_DONE)
    sqlite3_reset(statement)
}
// "yyyy-MM-dd HH:mm:ss.SSS" (UTC), GRDB's text for a Date, into `buffer`; returns its length.
func timestamp(into buffer: inout [CChar]) -> Int32 {
    var now = timespec(), parts = tm()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    gmtime_r(&seconds, &parts)
    return buffer.withUnsafeMutableBufferPointer { out in
        let length = strftime(out.baseAddress!, 32, "%Y-%m-%d %H:%M:%S", &parts)
        let millis = Int(now.tv_nsec / 1_000_000)
        out[length] = 0x2E  // "."
        out[length + 1] = CChar(0x30 + millis / 100)
        out[length + 2] = CChar(0x30 + millis / 10 % 10)
        out[length + 3] = CChar(0x30 + millis % 10)
        return Int32(length + 4)
    }
}
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

var buffer = [CChar](repeating: 0, count: 32)
var latencies = [UInt64](repeating: 0, count: count)
let started = monotonicNanoseconds()
for index in 0..<count {
    let student = Int64(index / 2) % students
    let begun = monotonicNanoseconds()
    step(begin)
    if index % 2 == 0 {
        sqlite3_bind_int64(insert, 1, student)
        let length = timestamp(into: &buffer)
        buffer.withUnsafeBufferPointer { _ = sqlite3_bind_text(insert, 2, $0.baseAddress, length, transient) }
        step(insert)
        step(added)
    } else {
        sqlite3_bind_int64(delete, 1, student)
        step(delete)
        step(removed)
    }
    step(commit)
    latencies[index] = monotonicNanoseconds() - begun
}
let seconds = Double(monotonicNanoseconds() - started) / 1e9
for statement in [begin, commit, insert, added, delete, removed] { sqlite3_finalize(statement) }
// The loop did what it says: the counter agrees with the rows.
let agree = prepare(db, "SELECT (SELECT enrolled FROM registration_classes WHERE id = 7030) = (SELECT count(*) FROM registration_enrollments)")
check(sqlite3_step(agree), db, "check", expect: SQLITE_ROW)
guard sqlite3_column_int(agree, 0) == 1 else { fatalError("the class's counter and its enrollments disagree") }
sqlite3_finalize(agree)
print("sqlite ceiling: \(count) transactions in \(String(format: "%.2f", seconds)) s (prepared statements, SQLite \(String(cString: sqlite3_libversion())))")
print("ceiling_tps=\(Int((Double(count) / seconds).rounded()))")
latencies.sort()
func ms(_ nanoseconds: UInt64) -> String { String(format: "%.3f", Double(nanoseconds) / 1e6) }
print("transaction_p99_ms=\(ms(latencies[latencies.count * 99 / 100])) transaction_max_ms=\(ms(latencies.last!)) checkpoints=\(inlineCheckpoints ? "inline" : "thread")")
