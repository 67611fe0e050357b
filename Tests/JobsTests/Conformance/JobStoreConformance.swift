import Contracts
import Foundation
import GatewayCore
import Jobs
import Logging
import PostgresStores
import SQLiteStores
import Storage
import TestSupport
import Testing
import PostgresStorage

/// A backend the job system can run on, made fresh for one test: its transaction runner and
/// its stores, and how to throw it away. Every backend must pass ``JobStoreConformance`` (River's
/// driver test suite is the model): SQLite and PostgreSQL, with the same tests.
struct JobsBackend: CustomStringConvertible, Sendable {
    let description: String
    let make: @Sendable () async throws -> (transactions: any TransactionRunner, stores: JobsStores, cleanUp: @Sendable () async -> Void)

    static let sqlite = JobsBackend(description: "SQLite") {
        let (database, cleanUp) = try TestSQLite.database("jobs-conformance", modules: JobsHarness.modules)
        return (database, .sqlite(database: database), cleanUp)
    }

    static let postgres = JobsBackend(description: "PostgreSQL") {
        let database = try await TestPostgres.database("jobs", modules: [JobsSchema.self])
        return (database, .postgres(database: database), { await database.shutdown() })
    }

    static let all: [JobsBackend] = [.sqlite, .postgres]
}

/// The promises every job store makes, checked through the protocols only (``JobsStores``),
/// so a second backend is held to exactly what the first one is.
@Suite("Job store conformance")
struct JobStoreConformance {
    /// A runtime on `backend` with a manual clock; the test body gets it and the raw stores.
    static func withRuntime(
        _ backend: JobsBackend, _ body: (JobsRuntime, JobsStores, any TransactionRunner, ManualClock) async throws -> Void
    ) async throws {
        let (transactions, stores, cleanUp) = try await backend.make()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000))
        var logger = Logger(label: "jobs-conformance")
        logger.logLevel = .critical
        let runtime = JobsRuntime(transactions: transactions, stores: stores, clock: clock, configuration: JobsConfiguration(), logger: logger)
        do {
            try await body(runtime, stores, transactions, clock)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    @Test(arguments: JobsBackend.all)
    func aUniqueKeyHoldsOneLiveJobAndFreesItselfWhenTheJobEnds(_ backend: JobsBackend) async throws {
        try await Self.withRuntime(backend) { runtime, stores, transactions, clock in
            let job = try NewJob(kind: "k", args: NoPayload(), uniqueKey: "once")
            let now = clock.now()
            let first = try await transactions.write { tx in try stores.enqueuer.enqueue(job, in: tx, now: now) }
            let second = try await transactions.write { tx in try stores.enqueuer.enqueue(job, in: tx, now: now) }
            #expect(!first.duplicate)
            #expect(second.duplicate && second.id == first.id)
            let (_, claimed) = try await stores.queue.finishAndClaim([], queue: "default", limit: 5, worker: "w", now: now, leaseUntil: now.addingTimeInterval(30))
            #expect(claimed.map(\.id) == [first.id])
            let done = JobResolution(id: first.id, attempt: 1, queue: "default", kind: "k", action: .complete)
            _ = try await stores.queue.finishAndClaim([done], queue: "default", limit: 0, worker: "w", now: now, leaseUntil: now)
            #expect(try await runtime.service.job(id: first.id)?.state == .completed)
            let third = try await transactions.write { tx in try stores.enqueuer.enqueue(job, in: tx, now: now) }
            #expect(!third.duplicate && third.id != first.id, "a finished job no longer holds its key")
        }
    }

    @Test(arguments: JobsBackend.all)
    func aJobEnqueuedInARolledBackTransactionNeverExists(_ backend: JobsBackend) async throws {
        try await Self.withRuntime(backend) { _, stores, transactions, clock in
            struct Abandoned: Error {}
            let now = clock.now()
            await #expect(throws: Abandoned.self) {
                try await transactions.write { tx in
                    _ = try stores.enqueuer.enqueue(try NewJob(kind: "k", args: NoPayload()), in: tx, now: now)
                    throw Abandoned()
                }
            }
            let (_, claimed) = try await stores.queue.finishAndClaim([], queue: "default", limit: 5, worker: "w", now: now, leaseUntil: now.addingTimeInterval(30))
            #expect(claimed.isEmpty)
        }
    }

    @Test(arguments: JobsBackend.all)
    func claimsAreExclusiveByPriorityAndWaitForTheirTime(_ backend: JobsBackend) async throws {
        try await Self.withRuntime(backend) { _, stores, transactions, clock in
            let now = clock.now()
            let ids = try await transactions.write { tx in
                [
                    try stores.enqueuer.enqueue(try NewJob(kind: "low", args: NoPayload(), priority: 2), in: tx, now: now).id,
                    try stores.enqueuer.enqueue(try NewJob(kind: "high", args: NoPayload(), priority: 0), in: tx, now: now).id,
                    try stores.enqueuer.enqueue(try NewJob(kind: "later", args: NoPayload(), runAt: now.addingTimeInterval(60)), in: tx, now: now).id,
                    try stores.enqueuer.enqueue(try NewJob(kind: "other", args: NoPayload(), queue: "mail"), in: tx, now: now).id,
                ]
            }
            let lease = now.addingTimeInterval(30)
            let (_, a) = try await stores.queue.finishAndClaim([], queue: "default", limit: 1, worker: "A", now: now, leaseUntil: lease)
            let (_, b) = try await stores.queue.finishAndClaim([], queue: "default", limit: 5, worker: "B", now: now, leaseUntil: lease)
            #expect(a.map(\.id) == [ids[1]], "the most urgent first")
            #expect(b.map(\.id) == [ids[0]], "a claimed job goes to one worker; a future one waits; another queue's stays")
            clock.advance(by: 61)
            let later = clock.now()
            let (_, c) = try await stores.queue.finishAndClaim([], queue: "default", limit: 5, worker: "C", now: later, leaseUntil: later.addingTimeInterval(30))
            #expect(c.map(\.id) == [ids[2]])
            #expect(c.first?.attempt == 1)
        }
    }

    @Test(arguments: JobsBackend.all)
    func anExpiredLeaseReturnsTheJobAndTheOldHoldersWordNoLongerCounts(_ backend: JobsBackend) async throws {
        try await Self.withRuntime(backend) { runtime, stores, transactions, clock in
            let now = clock.now()
            let id = try await transactions.write { tx in try stores.enqueuer.enqueue(try NewJob(kind: "k", args: NoPayload()), in: tx, now: now).id }
            _ = try await stores.queue.finishAndClaim([], queue: "default", limit: 1, worker: "A", now: now, leaseUntil: now.addingTimeInterval(30))
            clock.advance(by: 31)
            let reaped = try await stores.queue.reapExpiredLeases(now: clock.now())
            #expect(reaped.map(\.id) == [id])
            let later = clock.now()
            let (_, retaken) = try await stores.queue.finishAndClaim([], queue: "default", limit: 1, worker: "B", now: later, leaseUntil: later.addingTimeInterval(30))
            #expect(retaken.map(\.attempt) == [2])
            let lateA = JobResolution(id: id, attempt: 1, queue: "default", kind: "k", action: .complete)
            let (ignored, _) = try await stores.queue.finishAndClaim([lateA], queue: "default", limit: 0, worker: "A", now: later, leaseUntil: later)
            #expect(ignored.map(\.state) == [nil])
            #expect(try await stores.queue.renewLeases([LeaseKey(id: id, attempt: 1)], worker: "A", until: later.addingTimeInterval(30)).isEmpty)
            #expect(try await runtime.service.job(id: id)?.state == .running)
        }
    }

    @Test(arguments: JobsBackend.all)
    func pruningDeletesOnlyFinishedJobsOlderThanTheirCutoff(_ backend: JobsBackend) async throws {
        try await Self.withRuntime(backend) { runtime, stores, transactions, clock in
            let now = clock.now()
            let (done, waiting) = try await transactions.write { tx in
                (
                    try stores.enqueuer.enqueue(try NewJob(kind: "k", args: NoPayload(), priority: 0), in: tx, now: now).id,
                    try stores.enqueuer.enqueue(try NewJob(kind: "k", args: NoPayload(), priority: 3), in: tx, now: now).id
                )
            }
            _ = try await stores.queue.finishAndClaim([], queue: "default", limit: 1, worker: "w", now: now, leaseUntil: now.addingTimeInterval(30))
            let complete = JobResolution(id: done, attempt: 1, queue: "default", kind: "k", action: .complete)
            _ = try await stores.queue.finishAndClaim([complete], queue: "default", limit: 0, worker: "w", now: now, leaseUntil: now)
            #expect(try await stores.queue.prune(finishedBefore: now.addingTimeInterval(-1), discardedBefore: now) == 0, "not old enough yet")
            clock.advance(by: 3600)
            #expect(try await stores.queue.prune(finishedBefore: clock.now(), discardedBefore: clock.now()) == 1)
            #expect(try await runtime.service.job(id: done) == nil)
            #expect(try await runtime.service.job(id: waiting)?.state == .available)
        }
    }
}
