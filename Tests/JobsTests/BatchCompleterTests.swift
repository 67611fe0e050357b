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

@Suite("Batched claims and completions: leases checked per job, each outcome recorded once")
struct BatchCompleterTests {
    /// One write records a batch of different outcomes, each only under its own lease, and
    /// claims the next jobs in the same transaction.
    @Test func aBatchWithMixedOutcomesRecordsEachUnderItsOwnLease() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let store = SQLiteJobStore(database: h.database)
        var ids: [Int64] = []
        for i in 0..<8 {
            ids.append(try await h.enqueue(try NewJob(kind: "k\(i)", args: Empty(), maxAttempts: i == 2 ? 1 : 5)).id)
        }
        let now = h.clock.now()
        let lease = now.addingTimeInterval(30)
        let (_, claimed) = try await store.finishAndClaim([], queue: "default", limit: 7, worker: "A", now: now, leaseUntil: lease)
        #expect(claimed.map(\.id) == Array(ids.prefix(7)))
        #expect(claimed.allSatisfy { $0.attempt == 1 && $0.leaseUntilMs == lease.millisecondsSince1970 })
        // Job 5's lease is lost before the batch is written (reaped after a stall, and claimed
        // by B); job 6 was cancelled by an operator.
        let stolen = ids[5]
        try await h.database.pool.write { db in
            try db.execute(sql: "UPDATE jobs SET locked_by = 'B', attempt = 2 WHERE id = ?", arguments: [stolen])
        }
        _ = try await h.service.cancel(id: ids[6])

        let later = now.addingTimeInterval(1)
        let retryAt = later.addingTimeInterval(60).millisecondsSince1970
        let snoozeUntil = later.addingTimeInterval(90).millisecondsSince1970
        func resolution(_ i: Int, _ action: JobResolution.Action) -> JobResolution {
            JobResolution(id: ids[i], attempt: 1, queue: "default", kind: "k\(i)", action: action)
        }
        let batch = [
            resolution(0, .complete),
            resolution(1, .fail(message: "boom", retryAtMs: retryAt)),
            resolution(2, .fail(message: "last", retryAtMs: retryAt)),
            resolution(3, .cancel(reason: "handler gave up")),
            resolution(4, .snooze(untilMs: snoozeUntil)),
            resolution(5, .complete),
            resolution(6, .complete),
        ]
        let (finished, next) = try await store.finishAndClaim(
            batch, queue: "default", limit: 10, worker: "A", now: later, leaseUntil: later.addingTimeInterval(30))
        #expect(finished.map(\.resolution.id) == Array(ids.prefix(7)))
        #expect(finished.map(\.state) == [.completed, .retryable, .discarded, .cancelled, .scheduled, nil, nil])
        // The same transaction claimed the one job still available.
        #expect(next.map(\.id) == [ids[7]])

        let jobs = try await (0..<7).asyncMap { try await h.job(ids[$0]) }
        #expect(jobs[0].state == .completed && jobs[0].finalizedAt != nil && jobs[0].leaseUntil == nil)
        #expect(jobs[1].state == .retryable && jobs[1].scheduledAt.millisecondsSince1970 == retryAt)
        #expect(jobs[1].errors.map(\.error) == ["boom"])
        #expect(jobs[2].state == .discarded && jobs[2].errors.map(\.error) == ["last"])
        #expect(jobs[3].state == .cancelled && jobs[3].errors.map(\.error) == ["handler gave up"])
        #expect(jobs[4].state == .scheduled && jobs[4].attempt == 0 && jobs[4].scheduledAt.millisecondsSince1970 == snoozeUntil)
        // Not A's to record: B's claim and the operator's cancellation stand.
        #expect(jobs[5].state == .running && jobs[5].attemptedBy == "B")
        #expect(jobs[6].state == .cancelled && jobs[6].errors.map(\.error) == ["cancelled by an operator"])
        // Recording the same batch again changes nothing: each outcome is recorded once.
        let (again, _) = try await store.finishAndClaim(batch, queue: "default", limit: 0, worker: "A", now: later, leaseUntil: later)
        #expect(again.allSatisfy { $0.state == nil })
    }

    /// Completions are written several per statement: each row is still checked against its
    /// own lease, and each resolution learns whether it was recorded.
    @Test func completionsWrittenTogetherAreEachCheckedAgainstTheirLease() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let store = SQLiteJobStore(database: h.database)
        let total = 70  // statements of 64, 4, 1 and 1 completions
        try await h.database.pool.write { db in
            for _ in 0..<total { try JobEnqueuer.enqueue(try NewJob(kind: "k", args: Empty()), in: db, now: h.clock.now(), signals: nil) }
        }
        let now = h.clock.now()
        let (_, claimed) = try await store.finishAndClaim([], queue: "default", limit: total, worker: "A", now: now, leaseUntil: now.addingTimeInterval(30))
        #expect(claimed.count == total)
        // Lost, each a different way: reaped and reclaimed by B, reaped and waiting, cancelled,
        // and one whose resolution names an earlier attempt.
        let reclaimed = claimed[3].id, reaped = claimed[40].id, cancelled = claimed[66].id, stale = claimed[69].id
        try await h.database.pool.write { db in
            try db.execute(sql: "UPDATE jobs SET locked_by = 'B', attempt = 2 WHERE id = ?", arguments: [reclaimed])
            try db.execute(sql: "UPDATE jobs SET state = 'retryable', lease_until = NULL WHERE id = ?", arguments: [reaped])
        }
        _ = try await h.service.cancel(id: cancelled)
        let resolutions = claimed.map { job in
            JobResolution(id: job.id, attempt: job.id == stale ? 0 : job.attempt, queue: "default", kind: "k", action: .complete)
        }
        let later = now.addingTimeInterval(1)
        let (finished, _) = try await store.finishAndClaim(resolutions, queue: "default", limit: 0, worker: "A", now: later, leaseUntil: later)
        let lost: Set<Int64> = [reclaimed, reaped, cancelled, stale]
        #expect(finished.map(\.resolution.id) == claimed.map(\.id))
        for item in finished {
            #expect(item.state == (lost.contains(item.resolution.id) ? nil : .completed), "job \(item.resolution.id)")
        }
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed' AND finalized_at IS NOT NULL AND lease_until IS NULL") == total - 4)
        #expect(try await h.job(reclaimed).state == .running)
        #expect(try await h.job(reaped).state == .retryable)
        #expect(try await h.job(cancelled).state == .cancelled)
        #expect(try await h.job(stale).state == .running, "a resolution for another attempt records nothing")
    }

    /// Jobs running or claimed ahead (waiting in the runner's buffer) whose lease is lost, or
    /// that an operator cancels, have no outcome recorded; those still waiting never run.
    @Test func jobsThatLoseTheirLeaseBeforeTheBatchIsWrittenAreNotRecorded() async throws {
        let h = try JobsHarness { $0.queues = ["default": 2] }
        defer { h.cleanUp() }
        let gate = FlagBox()
        let log = RunLog()
        h.registry.register(kind: "gated", args: Empty.self) { _, context in
            // Ignores cancellation: a handler that finishes anyway must not be recorded. (Its
            // waits don't end early when cancelled, so a cancelled handler can't spin; and it
            // gives up after 60 s, so a failed test can't leave it running.)
            for _ in 0..<12_000 where !gate.value {
                await withCheckedContinuation { done in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { done.resume() }
                }
            }
            log.record(context.jobID, attempt: context.attempt)
            return .complete
        }
        h.registry.register(kind: "noop", args: Empty.self) { _, context in
            log.record(context.jobID, attempt: context.attempt)
            return .complete
        }
        let kept = try await h.enqueue(try NewJob(kind: "gated", args: Empty())).id
        let lostRunning = try await h.enqueue(try NewJob(kind: "gated", args: Empty())).id
        let lostWaiting = try await h.enqueue(try NewJob(kind: "noop", args: Empty())).id
        let cancelledWaiting = try await h.enqueue(try NewJob(kind: "noop", args: Empty())).id
        let pool = h.pool
        let running = Task { try await pool.run() }
        // Two run, two are claimed ahead (one per worker at first): all four leased at once.
        #expect(try await eventually { try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'running'") == 4 })
        #expect(log.count == 0)
        // Another process reaped two of them (as if this one had stalled past the leases).
        try await h.database.pool.write { db in
            try db.execute(
                sql: "UPDATE jobs SET state = 'retryable', lease_until = NULL, run_at = ? WHERE id IN (?, ?)",
                arguments: [Int64.max / 2, lostRunning, lostWaiting])
        }
        _ = try await h.service.cancel(id: cancelledWaiting)
        await pool.runMaintenance()
        gate.value = true
        #expect(try await eventually { try await h.job(kept).state == .completed })
        pool.shutdown()
        try await running.value

        #expect(Set(log.all.map(\.job)) == [kept, lostRunning], "jobs waiting in the buffer did not run")
        let lost = try await h.job(lostRunning)
        #expect(lost.state == .retryable && lost.attempt == 1 && lost.finalizedAt == nil)
        #expect(try await h.job(lostWaiting).state == .retryable)
        let cancelled = try await h.job(cancelledWaiting)
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.errors.map(\.error) == ["cancelled by an operator"])
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed'") == 1)
    }

    /// On shutdown, jobs claimed ahead are given back at once (not started, attempt not used),
    /// while the running job may finish within the timeout.
    @Test func shutdownGivesBackJobsClaimedAheadAtOnce() async throws {
        let h = try JobsHarness { $0.queues = ["default": 1]; $0.shutdownTimeout = 60 }
        defer { h.cleanUp() }
        let gate = FlagBox()
        let log = RunLog()
        h.registry.register(kind: "gated", args: Empty.self) { _, context in
            while !gate.value { try await Task.sleep(for: .milliseconds(5)) }
            log.record(context.jobID, attempt: context.attempt)
            return .complete
        }
        let running = try await h.enqueue(try NewJob(kind: "gated", args: Empty())).id
        let waiting = try await h.enqueue(try NewJob(kind: "gated", args: Empty())).id
        let pool = h.pool
        let task = Task { try await pool.run() }
        #expect(try await eventually { try await h.job(waiting).state == .running }, "claimed ahead")
        pool.shutdown()
        #expect(try await eventually { try await h.job(waiting).state == .available })
        #expect(try await h.job(running).state == .running, "still running")
        gate.value = true
        try await task.value
        #expect(log.all.map(\.job) == [running])
        #expect(try await h.job(running).state == .completed)
        let released = try await h.job(waiting)
        #expect(released.state == .available && released.attempt == 0 && released.errors.isEmpty && released.leaseUntil == nil)
    }

    /// A process that claimed a batch and died (no completion, no renewal): every job of the
    /// batch comes back once its lease expires, and runs again.
    @Test func aBatchClaimedByACrashedProcessReturnsAfterItsLeaseExpires() async throws {
        let h = try JobsHarness { $0.leaseDuration = 30 }
        defer { h.cleanUp() }
        let log = RunLog()
        h.registry.register(kind: "noop", args: Empty.self) { _, context in
            log.record(context.jobID, attempt: context.attempt)
            return .complete
        }
        for _ in 0..<25 { try await h.enqueue(try NewJob(kind: "noop", args: Empty())) }
        let now = h.clock.now()
        let (_, claimed) = try await SQLiteJobStore(database: h.database).finishAndClaim(
            [], queue: "default", limit: 20, worker: "crashed", now: now, leaseUntil: now.addingTimeInterval(30))
        #expect(claimed.count == 20)
        // Before expiry the crashed process's jobs are left alone; the other five run.
        h.clock.advance(by: 29)
        await h.pool.runMaintenance()
        #expect(try await h.pool.drain().count == 5)
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'running' AND locked_by = 'crashed'") == 20)
        h.clock.advance(by: 2)
        await h.pool.runMaintenance()
        let rerun = try await h.pool.drain()
        #expect(rerun.count == 20)
        #expect(rerun.allSatisfy { $0.state == .completed && $0.resolution.attempt == 2 })
        #expect(Set(rerun.map(\.resolution.id)) == Set(claimed.map(\.id)))
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed'") == 25)
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE errors LIKE '%lease expired%'") == 20)
        #expect(log.count == 25)
    }

    /// Four workers fed from batched claims, completions written in batches: every job runs
    /// once and is completed once.
    @Test func fourWorkersCompleteEveryJobExactlyOnce() async throws {
        let h = try JobsHarness { $0.queues = ["default": 4] }
        defer { h.cleanUp() }
        let log = RunLog()
        h.registry.register(kind: "noop", args: Empty.self) { _, context in
            log.record(context.jobID, attempt: context.attempt)
            return .complete
        }
        let total = 1500
        try await h.database.pool.write { db in
            for _ in 0..<total { try JobEnqueuer.enqueue(try NewJob(kind: "noop", args: Empty()), in: db, now: h.clock.now(), signals: nil) }
        }
        let pool = h.pool
        let running = Task { try await pool.run() }
        // More arrive, one per transaction, while the pool works.
        for _ in 0..<300 { try await h.enqueue(try NewJob(kind: "noop", args: Empty())) }
        // Bounded for a loaded machine whose disk flushes slowly; a quiet one takes about a second.
        let done = try await eventually(seconds: 150) {
            try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed'") == total + 300
        }
        pool.shutdown()
        try await running.value
        #expect(done)
        let runs = log.all
        #expect(runs.count == total + 300)
        #expect(Set(runs.map(\.job)).count == total + 300)
        #expect(runs.allSatisfy { $0.attempt == 1 })
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state = 'completed' AND attempt = 1 AND lease_until IS NULL") == total + 300)
        #expect(try await h.count("SELECT COUNT(*) FROM jobs WHERE state != 'completed'") == 0)
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
