import Contracts
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import Storage
import Foundation
import GRDB
import GatewayCore
import Jobs
import Testing
import SQLiteStorage

@Suite("Job queue: enqueue, claim, outcomes, leases, pause, pruning (manual clock)")
struct JobQueueTests {
    struct Greeting: Codable, Sendable { let name: String }
    struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }

    @Test func duplicateUniqueKeyReturnsTheLiveJob() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        h.registry.register(kind: "noop", args: Empty.self) { _, _ in .complete }
        let first = try await h.enqueue(try NewJob(kind: "noop", args: Empty(), uniqueKey: "k1"))
        let second = try await h.enqueue(try NewJob(kind: "noop", args: Empty(), uniqueKey: "k1"))
        #expect(!first.duplicate)
        #expect(second.duplicate)
        #expect(second.id == first.id)
        #expect(try await h.count("SELECT COUNT(*) FROM jobs") == 1)
        // Once finished, the key is free again.
        try await h.pool.drain()
        let third = try await h.enqueue(try NewJob(kind: "noop", args: Empty(), uniqueKey: "k1"))
        #expect(!third.duplicate)
        #expect(third.id != first.id)
        // The partial unique index holds even for a direct insert.
        await #expect(throws: DatabaseError.self) {
            try await h.database.pool.write { db in
                try db.execute(sql: "INSERT INTO jobs (queue, kind, state, run_at, unique_key, created_at) VALUES ('default', 'noop', 'available', 0, 'k1', 0)")
            }
        }
    }

    @Test func enqueueCommitsOrRollsBackWithTheCallersTransaction() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        struct Rollback: Error {}
        let now = h.clock.now()
        await #expect(throws: Rollback.self) {
            try await h.database.pool.write { db in
                try JobEnqueuer.enqueue(try NewJob(kind: "noop", args: Empty()), in: db, now: now, signals: nil)
                throw Rollback()
            }
        }
        #expect(try await h.count("SELECT COUNT(*) FROM jobs") == 0)
        let result = try await h.database.pool.write { db in
            try JobEnqueuer.enqueue(try NewJob(kind: "noop", args: Empty(), runAt: now.addingTimeInterval(60)), in: db, now: now, signals: nil)
        }
        #expect(result.state == .scheduled)
        #expect(try await h.job(result.id).scheduledAt == Date(millisecondsSince1970: now.addingTimeInterval(60).millisecondsSince1970))
    }

    @Test func claimsByPriorityThenDueTimeThenIDAndPassesTypedArgs() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let log = RunLog()
        h.registry.register(kind: "greet", args: Greeting.self) { args, context in
            log.record(context.jobID, attempt: context.attempt, by: args.name)
            return .complete
        }
        let now = h.clock.now()
        try await h.enqueue(try NewJob(kind: "greet", args: Greeting(name: "late"), priority: 1))
        try await h.enqueue(try NewJob(kind: "greet", args: Greeting(name: "second"), runAt: now.addingTimeInterval(-5)))
        try await h.enqueue(try NewJob(kind: "greet", args: Greeting(name: "first"), runAt: now.addingTimeInterval(-10)))
        try await h.enqueue(try NewJob(kind: "greet", args: Greeting(name: "third")))
        try await h.enqueue(try NewJob(kind: "greet", args: Greeting(name: "future"), runAt: now.addingTimeInterval(10)))
        let finished = try await h.pool.drain()
        #expect(finished.map(\.state) == Array(repeating: .completed, count: 4))
        #expect(log.all.map(\.by) == ["first", "second", "third", "late"])
        #expect(log.all.allSatisfy { $0.attempt == 1 })
        h.clock.advance(by: 10)
        try await h.pool.drain()
        #expect(log.all.last?.by == "future")
    }

    @Test func failedAttemptRetriesAfterExponentialBackoff() async throws {
        let h = try JobsHarness { $0.backoff = Backoff(base: 2, factor: 2, maximum: 3600, jitter: 0.2) }
        defer { h.cleanUp() }
        let log = RunLog()
        h.registry.register(kind: "flaky", args: Empty.self) { _, context in
            log.record(context.jobID, attempt: context.attempt)
            throw Boom()
        }
        let id = try await h.enqueue(try NewJob(kind: "flaky", args: Empty(), maxAttempts: 5)).id
        var expectedDelays: [TimeInterval] = []
        for attempt in 1...3 {
            let start = h.clock.now()
            try await h.pool.drain()
            let job = try await h.job(id)
            #expect(job.state == .retryable)
            #expect(job.attempt == attempt)
            // Jitter is fixed at the middle by the harness: exactly base · 2^(attempt−1).
            let delay = job.scheduledAt.timeIntervalSince(start)
            expectedDelays.append(2 * pow(2, Double(attempt - 1)))
            #expect(abs(delay - expectedDelays.last!) < 0.002)
            // Not due yet: nothing runs.
            h.clock.advance(by: delay - 0.5)
            #expect(try await h.pool.drain().isEmpty)
            h.clock.advance(by: 0.5)
        }
        #expect(log.all.map(\.attempt) == [1, 2, 3])
    }

    @Test func backoffGrowsIsCappedAndJittersWithinBounds() {
        let backoff = Backoff(base: 2, factor: 2, maximum: 60, jitter: 0.25)
        #expect(backoff.delay(afterAttempt: 1, unit: 0.5) == 2)
        #expect(backoff.delay(afterAttempt: 4, unit: 0.5) == 16)
        #expect(backoff.delay(afterAttempt: 20, unit: 0.5) == 60)
        #expect(backoff.delay(afterAttempt: 1000, unit: 0.5) == 60)
        #expect(backoff.delay(afterAttempt: 3, unit: 0) == 6)
        #expect(backoff.delay(afterAttempt: 3, unit: 1) == 10)
        #expect(backoff.bounds(afterAttempt: 20) == 45...75)
        for unit in stride(from: 0.0, through: 1.0, by: 0.1) {
            #expect(backoff.bounds(afterAttempt: 5).contains(backoff.delay(afterAttempt: 5, unit: unit)))
        }
    }

    @Test func discardedAfterMaxAttemptsWithTheErrorHistoryKept() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        h.registry.register(kind: "doomed", args: Empty.self) { _, context in
            throw JobRetryLater(after: 1, message: "upstream said no (attempt \(context.attempt))")
        }
        let id = try await h.enqueue(try NewJob(kind: "doomed", args: Empty(), maxAttempts: 3)).id
        var times: [Date] = []
        for _ in 1...3 {
            times.append(h.clock.now())
            try await h.pool.drain()
            h.clock.advance(by: 1)
        }
        let job = try await h.job(id)
        #expect(job.state == .discarded)
        #expect(job.attempt == 3)
        #expect(job.finalizedAt != nil)
        #expect(job.errors.map(\.attempt) == [1, 2, 3])
        #expect(job.errors.map(\.error) == (1...3).map { "upstream said no (attempt \($0))" })
        #expect(zip(job.errors.map(\.at), times).allSatisfy { abs($0.timeIntervalSince($1)) < 1 })
        h.clock.advance(by: 3600)
        #expect(try await h.pool.drain().isEmpty)
    }

    @Test func handlerChoosesTheRetryTimeCancelsOrSnoozes() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        h.registry.register(kind: "retry-after", args: Empty.self) { _, _ in .retry(after: 120, message: "429") }
        h.registry.register(kind: "cancel", args: Empty.self) { _, _ in throw JobCancel("account closed") }
        let snoozedOnce = FlagBox()
        h.registry.register(kind: "snooze", args: Empty.self) { _, _ in
            if snoozedOnce.value { return .complete }
            snoozedOnce.value = true
            return .snooze(seconds: 60)
        }
        let start = h.clock.now()
        let retry = try await h.enqueue(try NewJob(kind: "retry-after", args: Empty())).id
        let cancel = try await h.enqueue(try NewJob(kind: "cancel", args: Empty())).id
        let snooze = try await h.enqueue(try NewJob(kind: "snooze", args: Empty())).id
        try await h.pool.drain()

        let retried = try await h.job(retry)
        #expect(retried.state == .retryable)
        #expect(retried.scheduledAt.timeIntervalSince(start) == 120)
        #expect(retried.errors.map(\.error) == ["429"])

        let cancelled = try await h.job(cancel)
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.errors.map(\.error) == ["account closed"])

        // A snooze does not use up an attempt.
        var snoozed = try await h.job(snooze)
        #expect(snoozed.state == .scheduled)
        #expect(snoozed.attempt == 0)
        #expect(snoozed.errors.isEmpty)
        h.clock.advance(by: 60)
        try await h.pool.drain()
        snoozed = try await h.job(snooze)
        #expect(snoozed.state == .completed)
        #expect(snoozed.attempt == 1)
    }

    @Test func unknownKindsAndUndecodableArgumentsFailTheAttempt() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        h.registry.register(kind: "greet", args: Greeting.self) { _, _ in .complete }
        let unknown = try await h.enqueue(try NewJob(kind: "nobody.handles.this", args: Empty())).id
        let bad = try await h.enqueue(NewJob(kind: "greet", rawArgs: Data(#"{"nom":"x"}"#.utf8))).id
        try await h.pool.drain()
        #expect(try await h.job(unknown).state == .retryable)
        #expect(try await h.job(unknown).errors.first?.error.contains("no handler") == true)
        #expect(try await h.job(bad).errors.first?.error.contains("arguments do not decode") == true)
    }

    @Test func outcomesAreRecordedOnlyWhileTheLeaseIsHeld() async throws {
        let h = try JobsHarness { $0.leaseDuration = 30 }
        defer { h.cleanUp() }
        let store = SQLiteJobStore(database: h.database)
        let id = try await h.enqueue(try NewJob(kind: "k", args: Empty())).id
        let now = h.clock.now()
        let (_, claimedByA) = try await store.finishAndClaim([], queue: "default", limit: 5, worker: "A", now: now, leaseUntil: now.addingTimeInterval(30))
        #expect(claimedByA.map(\.id) == [id])
        // Nobody else can claim it while A's lease is live.
        let (_, claimedByB) = try await store.finishAndClaim([], queue: "default", limit: 5, worker: "B", now: now, leaseUntil: now.addingTimeInterval(30))
        #expect(claimedByB.isEmpty)
        h.clock.advance(by: 20)
        #expect(try await store.reapExpiredLeases(now: h.clock.now()).isEmpty)
        // A renews, so the original expiry passes harmlessly.
        #expect(try await store.renewLeases([LeaseKey(id: id, attempt: 1)], worker: "A", until: h.clock.now().addingTimeInterval(30)) == [id])
        h.clock.advance(by: 20)
        #expect(try await store.reapExpiredLeases(now: h.clock.now()).isEmpty)
        // A stalls past its lease: the reaper returns the job and B claims it.
        h.clock.advance(by: 31)
        let reaped = try await store.reapExpiredLeases(now: h.clock.now())
        #expect(reaped == [ReapedJob(id: id, queue: "default", kind: "k", state: .retryable)])
        let later = h.clock.now()
        let (_, reclaimed) = try await store.finishAndClaim([], queue: "default", limit: 5, worker: "B", now: later, leaseUntil: later.addingTimeInterval(30))
        #expect(reclaimed.map(\.attempt) == [2])
        // A wakes up and reports success: ignored. Its renewal fails too.
        let complete = JobResolution(id: id, attempt: 1, queue: "default", kind: "k", action: .complete)
        let (lateA, _) = try await store.finishAndClaim([complete], queue: "default", limit: 0, worker: "A", now: later, leaseUntil: later)
        #expect(lateA.map(\.state) == [nil])
        #expect(try await store.renewLeases([LeaseKey(id: id, attempt: 1)], worker: "A", until: later.addingTimeInterval(30)).isEmpty)
        #expect(try await h.job(id).state == .running)
        let completeB = JobResolution(id: id, attempt: 2, queue: "default", kind: "k", action: .complete)
        let (doneB, _) = try await store.finishAndClaim([completeB], queue: "default", limit: 0, worker: "B", now: later, leaseUntil: later)
        #expect(doneB.map(\.state) == [.completed])
        let job = try await h.job(id)
        #expect(job.attemptedBy == "B")
        #expect(job.errors.count == 1)
        #expect(job.errors.first?.error.contains("lease expired") == true)
    }

    @Test func pausedQueuesAreNotClaimedUntilResumed() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        h.registry.register(kind: "noop", args: Empty.self) { _, _ in .complete }
        try await h.enqueue(try NewJob(kind: "noop", args: Empty()))
        try await h.enqueue(try NewJob(kind: "noop", args: Empty(), queue: "other"))
        try await h.service.pause(queue: "default")
        #expect(try await h.pool.drain(queue: "default").isEmpty)
        #expect(try await h.pool.drain(queue: "other").count == 1)
        #expect(try await h.service.queue("default").paused)
        try await h.service.resume(queue: "default")
        #expect(try await h.pool.drain(queue: "default").count == 1)
        #expect(try await !h.service.queue("default").paused)
    }

    @Test func pruningDeletesFinishedJobsAfterTheirAges() async throws {
        let h = try JobsHarness {
            $0.finishedRetention = 24 * 3600
            $0.discardedRetention = 7 * 24 * 3600
        }
        defer { h.cleanUp() }
        h.registry.register(kind: "noop", args: Empty.self) { _, _ in .complete }
        h.registry.register(kind: "fail", args: Empty.self) { _, _ in throw Boom() }
        let completed = try await h.enqueue(try NewJob(kind: "noop", args: Empty())).id
        let discarded = try await h.enqueue(try NewJob(kind: "fail", args: Empty(), maxAttempts: 1)).id
        let cancelled = try await h.enqueue(try NewJob(kind: "noop", args: Empty(), runAt: h.clock.now().addingTimeInterval(3600))).id
        _ = try await h.service.cancel(id: cancelled)
        let waiting = try await h.enqueue(try NewJob(kind: "noop", args: Empty(), runAt: h.clock.now().addingTimeInterval(30 * 24 * 3600))).id
        try await h.pool.drain()
        #expect(try await h.job(discarded).state == .discarded)

        h.clock.advance(by: 23 * 3600)
        await h.pool.runMaintenance()
        #expect(try await h.count("SELECT COUNT(*) FROM jobs") == 4)
        h.clock.advance(by: 2 * 3600)
        await h.pool.runMaintenance()
        #expect(try await h.service.job(id: completed) == nil)
        #expect(try await h.service.job(id: cancelled) == nil)
        #expect(try await h.service.job(id: discarded) != nil)
        h.clock.advance(by: 6 * 24 * 3600)
        await h.pool.runMaintenance()
        #expect(try await h.service.job(id: discarded) == nil)
        #expect(try await h.service.job(id: waiting) != nil)
    }

    @Test func operatorsRetryCancelAndDelete() async throws {
        let h = try JobsHarness()
        defer { h.cleanUp() }
        let fail = FlagBox()
        h.registry.register(kind: "sometimes", args: Empty.self) { _, _ in
            if fail.value { throw Boom() }
            return .complete
        }
        fail.value = true
        let id = try await h.enqueue(try NewJob(kind: "sometimes", args: Empty(), maxAttempts: 1)).id
        try await h.pool.drain()
        #expect(try await h.job(id).state == .discarded)
        fail.value = false
        let retried = try await h.service.retry(id: id)
        #expect(retried.state == .available)
        #expect(retried.maxAttempts == 2)
        #expect(retried.finalizedAt == nil)
        try await h.pool.drain()
        #expect(try await h.job(id).state == .completed)
        await #expect(throws: JobsError.jobFinished(jobID: id, state: "completed")) { try await h.service.cancel(id: id) }
        try await h.service.delete(id: id)
        #expect(try await h.service.job(id: id) == nil)
        await #expect(throws: JobsError.jobNotFound(id)) { try await h.service.retry(id: id) }
    }
}

final class FlagBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
