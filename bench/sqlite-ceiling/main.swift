import Foundation
import GRDB

// The ceiling for the registration writer (bench/registration-bench.sh): a bare SQLite loop on
// the gateway's settings (WAL, synchronous=NORMAL, checkpoints off the writer's thread, a fresh file), one transaction per
// registration, each one insert and one update (an enrollment row and the class's count), then
// each drop one delete and one update: what a registration writes, with nothing else around it.
// Usage: sqlite-ceiling [transactions] [thread|inline] (default 100000 thread); prints
// `ceiling_tps=N` and the transactions' p99 and longest time. `inline` leaves checkpoints to
// SQLite's default (inside the commit that passes 1,000 pages of log), to show what that costs
// where disk flushes are slow (bench/slow-fsync).
let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
let inlineCheckpoints = CommandLine.arguments.dropFirst(2).first == "inline"
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-ceiling-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
var configuration = Configuration()
configuration.prepareDatabase { db in
    try db.execute(sql: "PRAGMA synchronous = NORMAL")
    // As the gateway does: checkpoints on a thread of their own, not inside a commit.
    if !inlineCheckpoints { try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
}
let path = directory.appendingPathComponent("ceiling.sqlite").path
let pool = try DatabasePool(path: path, configuration: configuration)
let checkpointer = try DatabaseQueue(path: path)
if !inlineCheckpoints {
    Thread.detachNewThread {
        while true {
            Thread.sleep(forTimeInterval: 0.1)
            _ = try? checkpointer.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        }
    }
}
try pool.write { db in
    try db.execute(sql: """
        CREATE TABLE classes (id INTEGER PRIMARY KEY, seats INTEGER NOT NULL, enrolled INTEGER NOT NULL);
        CREATE TABLE enrollments (student_id INTEGER NOT NULL, class_id INTEGER NOT NULL, enrolled_at DATETIME NOT NULL,
            PRIMARY KEY (student_id, class_id)) WITHOUT ROWID;
        INSERT INTO classes VALUES (7030, 100, 0);
        """)
}
var latencies: [Duration] = []
latencies.reserveCapacity(count)
let started = ContinuousClock.now
for index in 0..<count {
    let student = Int64(index / 2 % 50)
    let begun = ContinuousClock.now
    defer { latencies.append(begun.duration(to: .now)) }
    try pool.write { db in
        if index % 2 == 0 {
            try db.execute(sql: "INSERT INTO enrollments (student_id, class_id, enrolled_at) VALUES (?, 7030, ?)", arguments: [student, Date()])
            try db.execute(sql: "UPDATE classes SET enrolled = enrolled + 1 WHERE id = 7030")
        } else {
            try db.execute(sql: "DELETE FROM enrollments WHERE student_id = ? AND class_id = 7030", arguments: [student])
            try db.execute(sql: "UPDATE classes SET enrolled = enrolled - 1 WHERE id = 7030")
        }
    }
}
let elapsed = started.duration(to: .now)
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("sqlite ceiling: \(count) transactions in \(String(format: "%.2f", seconds)) s")
print("ceiling_tps=\(Int((Double(count) / seconds).rounded()))")
latencies.sort()
func ms(_ d: Duration) -> String { String(format: "%.3f", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1e3) }
print("transaction_p99_ms=\(ms(latencies[latencies.count * 99 / 100])) transaction_max_ms=\(ms(latencies.last!)) checkpoints=\(inlineCheckpoints ? "inline" : "thread")")
