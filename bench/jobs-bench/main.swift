// Jobs benchmark: enqueue latency, and jobs per second end to end (claim, run a no-op handler,
// record completion) with 1 and 4 workers, on a fresh SQLite file in WAL mode.
//
//   swift run -c release jobs-bench [--jobs N] [--workers 1,4] [--phases enqueue,drain,e2e]
//       [--linger-us N] [--claim-batch N] [--prefetch N] [--inline yes]
// (the last three default to JobsConfiguration's defaults).
import Foundation
import GRDB
import GatewayCore
import Jobs
import Logging
import Storage
import Synchronization

struct NoArgs: Codable, Sendable {}

func argument(_ name: String, default value: String) -> String {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: name), i + 1 < args.count { return args[i + 1] }
    return value
}

let total = Int(argument("--jobs", default: "20000"))!
let workerCounts = argument("--workers", default: "1,4").split(separator: ",").compactMap { Int($0) }
/// Which measurements to run (for profiling one at a time): enqueue, drain, e2e.
let phases = Set(argument("--phases", default: "enqueue,drain,e2e").split(separator: ",").map(String.init))

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

func freshDatabase() throws -> (GatewayDatabase, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-bench-\(UUID().uuidString)")
    let db = try GatewayDatabase(path: dir.appendingPathComponent("bench.sqlite").path, modules: [JobsSchema.self])
    try db.migrate()
    return (db, dir)
}

/// Handler runs, counted in memory: the bench waits on this, not by polling the database (a
/// reader counting rows every few milliseconds would compete with the workers).
let handled = Mutex(0)

func runtime(_ db: GatewayDatabase, workers: Int) -> JobsRuntime {
    var config = JobsConfiguration()
    config.queues = ["default": workers]
    let defaults = JobsConfiguration()
    config.linger = Double(argument("--linger-us", default: "\(Int(defaults.linger * 1_000_000))"))! / 1_000_000
    config.claimBatch = Int(argument("--claim-batch", default: "\(defaults.claimBatch)"))!
    config.prefetch = Int(argument("--prefetch", default: "\(defaults.prefetch)"))!
    var logger = Logger(label: "jobs-bench")
    logger.logLevel = .error
    let stores = JobsStores.sqlite(database: db)
    let runtime = JobsRuntime(transactions: db, stores: stores, clock: SystemClock(), configuration: config, logger: logger)
    runtime.registry.register(kind: "bench.noop", args: NoArgs.self) { _, _ in
        handled.withLock { $0 += 1 }
        return .complete
    }
    return runtime
}

func completed(_ db: GatewayDatabase) async throws -> Int {
    try await db.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE state = 'completed'") ?? 0 }
}

func waitForAll(_ db: GatewayDatabase, _ n: Int) async throws {
    while handled.withLock({ $0 }) < n { try await Task.sleep(for: .milliseconds(1)) }
    // Every handler ran; the last outcomes are recorded with the next write.
    while try await completed(db) < n { try await Task.sleep(for: .milliseconds(1)) }
    handled.withLock { $0 = 0 }
}

let job = try NewJob(kind: "bench.noop", args: NoArgs())
let sqliteVersion = try {
    let (db, dir) = try freshDatabase()
    defer { try? FileManager.default.removeItem(at: dir) }
    return try db.sqliteVersion()
}()
print("jobs-bench: \(total) jobs per run, SQLite \(sqliteVersion), \(ProcessInfo.processInfo.activeProcessorCount) cores")

// 1. Enqueue latency: each job in its own transaction.
if phases.contains("enqueue") {
    let (db, dir) = try freshDatabase()
    defer { try? FileManager.default.removeItem(at: dir) }
    let service = runtime(db, workers: 1).service
    var latencies: [Double] = []
    latencies.reserveCapacity(total)
    let start = ContinuousClock.now
    // On the global executor, as request handlers are (see the end-to-end producer).
    latencies = try await Task.detached {
        var latencies: [Double] = []
        latencies.reserveCapacity(total)
        for _ in 0..<total {
            let t = ContinuousClock.now
            try await service.enqueue(job)
            latencies.append(seconds(ContinuousClock.now - t) * 1e6)
        }
        return latencies
    }.value
    let elapsed = seconds(ContinuousClock.now - start)
    latencies.sort()
    print(String(format: "enqueue (own transaction): %.0f jobs/s, p50 %.0f µs, p99 %.0f µs", Double(total) / elapsed,
                 percentile(latencies, 0.5), percentile(latencies, 0.99)))

    let (bulkDB, bulkDir) = try freshDatabase()
    defer { try? FileManager.default.removeItem(at: bulkDir) }
    let bulkStart = ContinuousClock.now
    try bulkDB.pool.write { db in
        let now = Date()
        for _ in 0..<total { try JobEnqueuer.enqueue(job, in: db, now: now, signals: nil) }
    }
    print(String(format: "enqueue (%d in one transaction): %.0f jobs/s", total, Double(total) / seconds(ContinuousClock.now - bulkStart)))
}

// 2a. Baseline: `WorkerPool.drain` claims and completes one job per transaction, inline.
if argument("--inline", default: "no") == "yes" {
    let (db, dir) = try freshDatabase()
    defer { try? FileManager.default.removeItem(at: dir) }
    let n = min(total, 5000)
    try db.pool.write { db in
        let now = Date()
        for _ in 0..<n { try JobEnqueuer.enqueue(job, in: db, now: now, signals: nil) }
    }
    let start = ContinuousClock.now
    try await runtime(db, workers: 1).pool.drain()
    let elapsed = seconds(ContinuousClock.now - start)
    print(String(format: "inline drain (2 transactions per job, no tasks): %.0f jobs/s", Double(n) / elapsed))
}

// 2. Drain: jobs already enqueued; claim, run a no-op, complete.
for workers in workerCounts where phases.contains("drain") {
    let (db, dir) = try freshDatabase()
    defer { try? FileManager.default.removeItem(at: dir) }
    try db.pool.write { db in
        let now = Date()
        for _ in 0..<total { try JobEnqueuer.enqueue(job, in: db, now: now, signals: nil) }
    }
    let jobs = runtime(db, workers: workers)
    let start = ContinuousClock.now
    let pool = jobs.pool
    let running = Task { try await pool.run() }
    try await waitForAll(db, total)
    let elapsed = seconds(ContinuousClock.now - start)
    pool.shutdown()
    try await running.value
    print(String(format: "drain, %d worker(s): %.0f jobs/s (%d jobs in %.2f s)", workers, Double(total) / elapsed, total, elapsed))
}

// 3. End to end: a producer enqueues one job per transaction while the pool runs them.
for workers in workerCounts where phases.contains("e2e") {
    let (db, dir) = try freshDatabase()
    defer { try? FileManager.default.removeItem(at: dir) }
    let jobs = runtime(db, workers: workers)
    let pool = jobs.pool
    let running = Task { try await pool.run() }
    try await Task.sleep(for: .milliseconds(50))
    let start = ContinuousClock.now
    // The producer runs on the global executor, as request handlers do (top-level code runs on
    // the main actor, and every call from there would hop off it and back).
    let service = jobs.service
    try await Task.detached {
        for _ in 0..<total { try await service.enqueue(job) }
    }.value
    try await waitForAll(db, total)
    let elapsed = seconds(ContinuousClock.now - start)
    pool.shutdown()
    try await running.value
    print(String(format: "end to end (enqueue one per transaction while working), %d worker(s): %.0f jobs/s", workers, Double(total) / elapsed))
}
