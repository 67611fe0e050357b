// Jobs benchmark: enqueue latency, and jobs per second end to end (claim, run a no-op handler,
// record completion) with 1 and 4 workers, on a fresh SQLite file in WAL mode, or with
// `--database postgres://…` on a PostgreSQL database (emptied before each phase).
//
//   swift run -c release jobs-bench [--jobs N] [--workers 1,4] [--phases enqueue,drain,e2e]
//       [--linger-us N] [--claim-batch N] [--prefetch N] [--inline yes] [--database URL]
// (the linger, claim batch and prefetch default to JobsConfiguration's defaults).
import Foundation
import GatewayCore
import Jobs
import Logging
import PostgresNIO
import PostgresStores
import SQLiteStores
import Storage
import Synchronization
import SQLiteStorage
import PostgresStorage

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

/// The backend under test, emptied for each phase.
struct Backend {
    let transactions: any TransactionRunner
    let stores: JobsStores
    /// How many jobs completed.
    let completed: @Sendable () async throws -> Int
    let cleanUp: () async -> Void
}

let postgresURL: String? = { let url = argument("--database", default: ""); return url.isEmpty ? nil : url }()
let benchLogger: Logger = {
    var logger = Logger(label: "jobs-bench")
    logger.logLevel = .error
    return logger
}()

func freshBackend() async throws -> Backend {
    if let postgresURL {
        guard case .postgres(let settings) = try DatabaseLocation.parse(postgresURL) else { fatalError("--database takes a postgres:// URL") }
        let database = GatewayPostgres(settings: settings, connections: 12, logger: benchLogger)
        database.start()
        try await database.migrate([JobsSchema.self])
        try await database.write { tx in try tx.postgres().execute("TRUNCATE jobs, job_schedules, job_queues RESTART IDENTITY") }
        return Backend(
            transactions: database, stores: .postgres(database: database),
            completed: {
                try await database.read { tx in
                    try tx.postgres().query("SELECT COUNT(*) FROM jobs WHERE state = 'completed'").first?.decode(Int.self) ?? 0
                }
            },
            cleanUp: { await database.shutdown() }
        )
    }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-bench-\(UUID().uuidString)")
    let db = try GatewayDatabase(path: dir.appendingPathComponent("bench.sqlite").path, modules: [JobsSchema.self])
    try db.migrate()
    return Backend(
        transactions: db, stores: .sqlite(database: db),
        completed: { try await db.read { tx in try JobsStores.sqlite(database: db).admin.queueNumbers(now: Date(), in: tx)["default"]?.counts[.completed] ?? 0 } },
        cleanUp: { try? FileManager.default.removeItem(at: dir) }
    )
}

/// Enqueues `n` jobs in one transaction.
func enqueueAll(_ backend: Backend, _ n: Int) async throws {
    let enqueuer = backend.stores.enqueuer
    try await backend.transactions.write { tx in
        let now = Date()
        for _ in 0..<n { try enqueuer.enqueue(job, in: tx, now: now) }
    }
}

/// Handler runs, counted in memory: the bench waits on this, not by polling the database (a
/// reader counting rows every few milliseconds would compete with the workers).
let handled = Mutex(0)

func runtime(_ backend: Backend, workers: Int) -> JobsRuntime {
    var config = JobsConfiguration()
    config.queues = ["default": workers]
    let defaults = JobsConfiguration()
    config.linger = Double(argument("--linger-us", default: "\(Int(defaults.linger * 1_000_000))"))! / 1_000_000
    config.claimBatch = Int(argument("--claim-batch", default: "\(defaults.claimBatch)"))!
    config.prefetch = Int(argument("--prefetch", default: "\(defaults.prefetch)"))!
    let runtime = JobsRuntime(
        transactions: backend.transactions, stores: backend.stores, clock: SystemClock(), configuration: config, logger: benchLogger
    )
    runtime.registry.register(kind: "bench.noop", args: NoArgs.self) { _, _ in
        handled.withLock { $0 += 1 }
        return .complete
    }
    return runtime
}

func waitForAll(_ backend: Backend, _ n: Int) async throws {
    while handled.withLock({ $0 }) < n { try await Task.sleep(for: .milliseconds(1)) }
    // Every handler ran; the last outcomes are recorded with the next write.
    while try await backend.completed() < n { try await Task.sleep(for: .milliseconds(1)) }
    handled.withLock { $0 = 0 }
}

let job = try NewJob(kind: "bench.noop", args: NoArgs())
let backendName: String
if postgresURL != nil {
    backendName = "PostgreSQL"
} else {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-bench-\(UUID().uuidString)")
    backendName = "SQLite \(try GatewayDatabase(path: dir.appendingPathComponent("v.sqlite").path, modules: []).sqliteVersion())"
    try? FileManager.default.removeItem(at: dir)
}
print("jobs-bench: \(total) jobs per run, \(backendName), \(ProcessInfo.processInfo.activeProcessorCount) cores")

// 1. Enqueue latency: each job in its own transaction.
if phases.contains("enqueue") {
    let backend = try await freshBackend()
    let service = runtime(backend, workers: 1).service
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

    await backend.cleanUp()

    let bulk = try await freshBackend()
    let bulkStart = ContinuousClock.now
    try await enqueueAll(bulk, total)
    print(String(format: "enqueue (%d in one transaction): %.0f jobs/s", total, Double(total) / seconds(ContinuousClock.now - bulkStart)))
    await bulk.cleanUp()
}

// 2a. Baseline: `WorkerPool.drain` claims and completes one job per transaction, inline.
if argument("--inline", default: "no") == "yes" {
    let backend = try await freshBackend()
    let n = min(total, 5000)
    try await enqueueAll(backend, n)
    let start = ContinuousClock.now
    try await runtime(backend, workers: 1).pool.drain()
    let elapsed = seconds(ContinuousClock.now - start)
    print(String(format: "inline drain (2 transactions per job, no tasks): %.0f jobs/s", Double(n) / elapsed))
    await backend.cleanUp()
}

// 2. Drain: jobs already enqueued; claim, run a no-op, complete.
for workers in workerCounts where phases.contains("drain") {
    let backend = try await freshBackend()
    try await enqueueAll(backend, total)
    let jobs = runtime(backend, workers: workers)
    let start = ContinuousClock.now
    let pool = jobs.pool
    let running = Task { try await pool.run() }
    try await waitForAll(backend, total)
    let elapsed = seconds(ContinuousClock.now - start)
    pool.shutdown()
    try await running.value
    print(String(format: "drain, %d worker(s): %.0f jobs/s (%d jobs in %.2f s)", workers, Double(total) / elapsed, total, elapsed))
    await backend.cleanUp()
}

// 3. End to end: a producer enqueues one job per transaction while the pool runs them.
for workers in workerCounts where phases.contains("e2e") {
    let backend = try await freshBackend()
    let jobs = runtime(backend, workers: workers)
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
    try await waitForAll(backend, total)
    let elapsed = seconds(ContinuousClock.now - start)
    pool.shutdown()
    try await running.value
    print(String(format: "end to end (enqueue one per transaction while working), %d worker(s): %.0f jobs/s", workers, Double(total) / elapsed))
    await backend.cleanUp()
}
