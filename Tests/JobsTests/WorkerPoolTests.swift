import Contracts
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import Storage
import Foundation
import GRDB
import GatewayCore
import Jobs
import Synchronization
import Testing
import SQLiteStorage

@Suite("Worker pools: concurrency limits, two pools on one file, shutdown, cancellation")
struct WorkerPoolTests {
    /// Tracks how many handlers run at once.
    final class Concurrency: Sendable {
        private let state = Mutex<(now: Int, max: Int)>((0, 0))
        func enter() { state.withLock { $0.now += 1; $0.max = Swift.max($0.max, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var maximum: Int { state.withLock { $0.max } }
    }

    @Test func runsEveryJobWithinTheQueueConcurrencyLimit() async throws {
        let h = try JobsHarness { $0.queues = ["default": 3] }
        defer { h.cleanUp() }
        let concurrency = Concurrency()
        h.registry.register(kind: "work", args: Empty.self) { _, _ in
            concurrency.enter()
            defer { concurrency.leave() }
            // A barrier: the first handlers wait until three run at once. A pool that ran its
            // jobs one after another would never get there, and the test would fail.
            // Generous: on a loaded 2-core machine the cooperative pool may be slow to start them.
            let met = await eventually(seconds: 60) { concurrency.maximum >= 3 }
            return met ? .complete : .cancel(reason: "never ran three at once")
        }
        let pool = h.pool
        let running = Task { try await pool.run() }
        for _ in 0..<30 { try await h.enqueue(try NewJob(kind: "work", args: Empty())) }
        let done = try await eventually(seconds: 90) { try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed'") == 30 }
        pool.shutdown()
        try await running.value
        #expect(done)
        #expect(concurrency.maximum == 3, "three at once, never more")
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'running'") == 0)
    }

    @Test func twoPoolsOnOneDatabaseFileNeverRunAJobTwice() async throws {
        let a = try JobsHarness { $0.queues = ["default": 4] }
        defer { a.cleanUp() }
        let b = try JobsHarness(directory: a.directory, clock: a.clock) { $0.queues = ["default": 4] }
        let log = RunLog()
        for (name, h) in [("a", a), ("b", b)] {
            h.registry.register(kind: "noop", args: Empty.self) { _, context in
                log.record(context.jobID, attempt: context.attempt, by: name)
                return .complete
            }
        }
        let total = 600
        try await a.database.pool.write { db in
            for i in 0..<total {
                try JobEnqueuer.enqueue(try NewJob(kind: "noop", args: Empty(), priority: i % 3), in: db, now: a.clock.now(), signals: nil)
            }
        }
        let poolA = a.pool, poolB = b.pool
        let runA = Task { try await poolA.run() }
        let runB = Task { try await poolB.run() }
        // Generous: 600 jobs through two pools on a loaded machine with one core to spare.
        let done = try await eventually(seconds: 180) { try await a.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed'") == total }
        poolA.shutdown()
        poolB.shutdown()
        try await runA.value
        try await runB.value
        #expect(done)
        let runs = log.all
        #expect(runs.count == total)
        #expect(Set(runs.map(\.job)).count == total)
        #expect(runs.allSatisfy { $0.attempt == 1 })
        // The store agrees: each job completed on its first attempt, by the pool that ran it.
        #expect(try await a.count("SELECT COUNT(*) FROM jobs WHERE attempt = 1 AND state = 'completed'") == total)
        let ranBy = Dictionary(runs.map { ($0.job, $0.by) }, uniquingKeysWith: { first, _ in first })
        let lockedBy = try await a.database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, locked_by FROM jobs").map { ($0[0] as Int64, $0[1] as String?) }
        }
        let poolOf = [poolA.workerID: "a", poolB.workerID: "b"]
        #expect(lockedBy.allSatisfy { $0.1.flatMap { poolOf[$0] } == ranBy[$0.0] })
    }

    @Test func gracefulShutdownReleasesJobsThatOutliveTheTimeout() async throws {
        let h = try JobsHarness { $0.shutdownTimeout = 0.2 }
        defer { h.cleanUp() }
        let sawCancellation = FlagBox()
        h.registry.register(kind: "stubborn", args: Empty.self) { _, _ in
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                sawCancellation.value = true
                throw error
            }
            return .complete
        }
        let id = try await h.enqueue(try NewJob(kind: "stubborn", args: Empty())).id
        let pool = h.pool
        let running = Task { try await pool.run() }
        #expect(try await eventually { try await h.job(id).state == .running })
        pool.shutdown()
        try await running.value
        #expect(try await eventually { sawCancellation.value })
        let job = try await h.job(id)
        #expect(job.state == .available)
        #expect(job.attempt == 0)
        #expect(job.leaseUntil == nil)
        #expect(job.errors.isEmpty)
    }

    @Test func gracefulShutdownLetsJobsFinishWithinTheTimeout() async throws {
        let h = try JobsHarness { $0.shutdownTimeout = 60 }
        defer { h.cleanUp() }
        let gate = FlagBox()
        h.registry.register(kind: "short", args: Empty.self) { _, _ in
            while !gate.value { try await Task.sleep(for: .milliseconds(5)) }
            return .complete
        }
        let id = try await h.enqueue(try NewJob(kind: "short", args: Empty())).id
        let pool = h.pool
        let running = Task { try await pool.run() }
        #expect(try await eventually { try await h.job(id).state == .running })
        pool.shutdown()
        gate.value = true
        try await running.value
        #expect(try await h.job(id).state == .completed)
    }

    @Test func cancellingARunningJobCancelsItsHandler() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let sawCancellation = FlagBox()
        h.registry.register(kind: "long", args: Empty.self) { _, context in
            while !context.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            sawCancellation.value = true
            return .complete
        }
        let id = try await h.enqueue(try NewJob(kind: "long", args: Empty())).id
        let pool = h.pool
        let running = Task { try await pool.run() }
        #expect(try await eventually { try await h.job(id).state == .running })
        let cancelled = try await h.service.cancel(id: id)
        #expect(cancelled.state == .cancelled)
        #expect(try await eventually { sawCancellation.value })
        pool.shutdown()
        try await running.value
        // The handler's late "complete" was ignored: the job stays cancelled.
        let job = try await h.job(id)
        #expect(job.state == .cancelled)
        #expect(job.errors.last?.error == "cancelled by an operator")
    }

    @Test func aJobThatLostItsLeaseIsCancelledWhereItRuns() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let sawCancellation = FlagBox()
        h.registry.register(kind: "long", args: Empty.self) { _, context in
            while !context.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            sawCancellation.value = true
            return .complete
        }
        let id = try await h.enqueue(try NewJob(kind: "long", args: Empty())).id
        let pool = h.pool
        let running = Task { try await pool.run() }
        #expect(try await eventually { try await h.job(id).state == .running })
        // Another process reaped it (as if this one had stalled past its lease).
        try await h.database.pool.write { db in
            try db.execute(sql: "UPDATE jobs SET state = 'retryable', lease_until = NULL, run_at = ? WHERE id = ?", arguments: [Int64.max / 2, id])
        }
        await pool.runMaintenance()
        #expect(try await eventually { sawCancellation.value })
        pool.shutdown()
        try await running.value
        #expect(try await h.job(id).state == .retryable)
    }
}
