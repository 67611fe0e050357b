import Foundation
import GatewayCore
import Jobs
import Storage
import Testing

/// The promises the operators' store makes (``JobAdminStoring``), checked through the protocol
/// (and the service's rules over it) on every backend of ``JobsBackend``: a job reads back
/// with every field; lists filter by state, queue and kind, newest first behind an id cursor;
/// retrying makes a finished or waiting job available now with an attempt left, unless another
/// live job holds its unique key (refused without spoiling the transaction); cancelling ends a
/// job for good and records why; queue numbers count each queue's jobs and pauses.
@Suite("Job admin store conformance")
struct JobAdminStoreConformance {
    struct Args: Codable, Sendable { let n: Int }

    /// Completes or fails claimed jobs as worker `w` would.
    static func resolve(
        _ stores: JobsStores, _ id: Int64, attempt: Int = 1, queue: String = "default", kind: String = "k", _ action: JobResolution.Action,
        now: Date
    ) async throws -> JobState? {
        let resolution = JobResolution(id: id, attempt: attempt, queue: queue, kind: kind, action: action)
        let (finished, _) = try await stores.queue.finishAndClaim([resolution], queue: queue, limit: 0, worker: "w", now: now, leaseUntil: now)
        return finished.first?.state
    }

    /// Completed and discarded in the last hour, then in the last day.
    static func finished(_ numbers: QueueNumbers) -> [Int] {
        [numbers.completedLastHour, numbers.failedLastHour, numbers.completedLastDay, numbers.failedLastDay]
    }

    static func claim(_ stores: JobsStores, queue: String = "default", limit: Int = 1, now: Date) async throws -> [ClaimedJob] {
        try await stores.queue.finishAndClaim([], queue: queue, limit: limit, worker: "w", now: now, leaseUntil: now.addingTimeInterval(30)).claimed
    }

    @Test(arguments: JobsBackend.all)
    func aJobReadsBackAndListsFilterNewestFirstBehindACursor(_ backend: JobsBackend) async throws {
        try await JobStoreConformance.withRuntime(backend) { _, stores, transactions, clock in
            let now = clock.now()
            let enqueuer = stores.enqueuer
            let ids = try await transactions.write { tx throws in
                try [
                    NewJob(kind: "mail.send", args: Args(n: 1), queue: "mail", priority: 1, maxAttempts: 5, uniqueKey: "m1"),
                    NewJob(kind: "report", args: Args(n: 2)),
                    NewJob(kind: "mail.send", args: Args(n: 3), queue: "mail"),
                    NewJob(kind: "report", args: Args(n: 4), runAt: now.addingTimeInterval(3600)),
                    NewJob(kind: "report", args: Args(n: 5), priority: 3),
                ].map { try enqueuer.enqueue($0, in: tx, now: now).id }
            }
            #expect(try await Self.claim(stores, now: now).map(\.id) == [ids[1]])
            let admin = stores.admin
            try await transactions.read { tx throws in
                #expect(try admin.job(id: ids[0], in: tx) == JobRecord(
                    id: ids[0], kind: "mail.send", queue: "mail", state: .available, attempt: 0, maxAttempts: 5, priority: 1,
                    args: JSONValue(jsonText: #"{"n":1}"#), errors: [], uniqueKey: "m1", scheduledAt: now, attemptedAt: nil, attemptedBy: nil,
                    leaseUntil: nil, finalizedAt: nil, createdAt: now
                ))
                #expect(try admin.job(id: ids[1], in: tx) == JobRecord(
                    id: ids[1], kind: "report", queue: "default", state: .running, attempt: 1, maxAttempts: 20, priority: 0,
                    args: JSONValue(jsonText: #"{"n":2}"#), errors: [], uniqueKey: nil, scheduledAt: now, attemptedAt: now, attemptedBy: "w",
                    leaseUntil: now.addingTimeInterval(30), finalizedAt: nil, createdAt: now
                ))
                #expect(try admin.job(id: ids[3], in: tx)?.state == .scheduled)
                #expect(try admin.job(id: ids[3], in: tx)?.scheduledAt == now.addingTimeInterval(3600))
                #expect(try admin.job(id: ids[4] + 100, in: tx) == nil)

                func list(_ filter: JobFilter, before: Int64? = nil, limit: Int = 50) throws -> [Int64] {
                    try admin.list(filter, before: before, limit: limit, in: tx).map(\.id)
                }
                #expect(try list(JobFilter()) == ids.reversed(), "newest first")
                #expect(try list(JobFilter(states: [])) == ids.reversed(), "no state listed matches every state")
                #expect(try list(JobFilter(states: [.available])) == [ids[4], ids[2], ids[0]])
                #expect(try list(JobFilter(states: [.scheduled, .running])) == [ids[3], ids[1]])
                #expect(try list(JobFilter(queue: "mail")) == [ids[2], ids[0]])
                #expect(try list(JobFilter(kind: "report")) == [ids[4], ids[3], ids[1]])
                #expect(try list(JobFilter(states: [.available], queue: "default", kind: "report")) == [ids[4]])
                #expect(try list(JobFilter(kind: "nothing")) == [])
                #expect(try list(JobFilter(), limit: 2) == [ids[4], ids[3]])
                #expect(try list(JobFilter(), before: ids[3], limit: 2) == [ids[2], ids[1]], "the cursor is exclusive")
                #expect(try list(JobFilter(queue: "mail"), before: ids[2]) == [ids[0]])
            }
        }
    }

    /// A job that fails its last attempt is discarded with its error kept; a retry makes it
    /// available now with one more attempt, and it runs again as its next attempt.
    @Test(arguments: JobsBackend.all)
    func aDiscardedJobIsRetriedWithOneMoreAttempt(_ backend: JobsBackend) async throws {
        try await JobStoreConformance.withRuntime(backend) { runtime, stores, transactions, clock in
            let now = clock.now()
            let id = try await transactions.write { tx throws in
                try stores.enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 1), maxAttempts: 1), in: tx, now: now).id
            }
            _ = try await Self.claim(stores, now: now)
            let failed = try await Self.resolve(stores, id, .fail(message: "boom", retryAtMs: now.addingTimeInterval(5).millisecondsSince1970), now: now)
            #expect(failed == .discarded, "no attempt left")
            let discarded = try #require(try await runtime.service.job(id: id))
            #expect(discarded.state == .discarded)
            #expect(discarded.finalizedAt == now)
            #expect(discarded.leaseUntil == nil)
            #expect(discarded.errors == [JobAttemptError(at: now, attempt: 1, error: "boom")])

            clock.advance(by: 10)
            let later = clock.now()
            try await transactions.write { tx throws in try stores.admin.makeAvailable(id: id, now: later, in: tx) }
            let retried = try #require(try await runtime.service.job(id: id))
            #expect(retried.state == .available)
            #expect(retried.attempt == 1)
            #expect(retried.maxAttempts == 2, "one more attempt than it has used")
            #expect(retried.scheduledAt == later)
            #expect(retried.finalizedAt == nil)
            #expect(retried.errors.count == 1, "its history is kept")
            let again = try await Self.claim(stores, now: later)
            #expect(again.map(\.id) == [id])
            #expect(again.first?.attempt == 2)

            // The service's rules over the store: a running job is not retried; an available one
            // is left as it is; a completed or cancelled one comes back.
            await #expect(throws: JobsError.jobRunning(id)) { try await runtime.service.retry(id: id) }
            #expect(try await Self.resolve(stores, id, attempt: 2, .complete, now: later) == .completed)
            let revived = try await runtime.service.retry(id: id)
            #expect(revived.state == .available)
            #expect(revived.maxAttempts == 3)
            #expect(try await runtime.service.retry(id: id) == revived, "an available job is left alone")
            _ = try await runtime.service.cancel(id: id)
            #expect(try await runtime.service.retry(id: id).state == .available)
            await #expect(throws: JobsError.jobNotFound(id + 100)) { try await runtime.service.retry(id: id + 100) }
        }
    }

    /// A job waiting for a later time is made available now by a retry.
    @Test(arguments: JobsBackend.all)
    func aRetriedScheduledJobRunsNow(_ backend: JobsBackend) async throws {
        try await JobStoreConformance.withRuntime(backend) { _, stores, transactions, clock in
            let now = clock.now()
            let id = try await transactions.write { tx throws in
                try stores.enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 1), runAt: now.addingTimeInterval(600)), in: tx, now: now).id
            }
            #expect(try await Self.claim(stores, now: now).isEmpty)
            try await transactions.write { tx throws in try stores.admin.makeAvailable(id: id, now: now, in: tx) }
            let job = try #require(try await transactions.read { tx throws in try stores.admin.job(id: id, in: tx) })
            #expect(job.state == .available)
            #expect(job.scheduledAt == now)
            #expect(job.maxAttempts == 20, "attempts left already: unchanged")
            #expect(try await Self.claim(stores, now: now).map(\.id) == [id])
        }
    }

    /// A finished job whose unique key another live job now holds is not retried
    /// (``JobsError/uniqueKeyTaken(jobID:)``), and the refusal leaves the caller's transaction
    /// usable; once the key is free again, the retry goes through.
    @Test(arguments: JobsBackend.all)
    func aRetryIsRefusedWhileAnotherLiveJobHoldsTheKey(_ backend: JobsBackend) async throws {
        try await JobStoreConformance.withRuntime(backend) { runtime, stores, transactions, clock in
            let now = clock.now()
            let job = try NewJob(kind: "k", args: Args(n: 1), uniqueKey: "once")
            let first = try await transactions.write { tx throws in try stores.enqueuer.enqueue(job, in: tx, now: now).id }
            _ = try await Self.claim(stores, now: now)
            #expect(try await Self.resolve(stores, first, .complete, now: now) == .completed)
            let second = try await transactions.write { tx throws in try stores.enqueuer.enqueue(job, in: tx, now: now) }
            #expect(!second.duplicate, "the finished job no longer holds the key")

            await #expect(throws: JobsError.uniqueKeyTaken(jobID: first)) { try await runtime.service.retry(id: first) }
            let admin = stores.admin
            try await transactions.write { tx throws in
                #expect(throws: JobsError.uniqueKeyTaken(jobID: first)) { try admin.makeAvailable(id: first, now: now, in: tx) }
                #expect(try admin.job(id: first, in: tx)?.state == .completed, "refused: unchanged, and the transaction goes on")
                try admin.cancel(id: second.id, reason: "superseded", now: now, in: tx)
                try admin.makeAvailable(id: first, now: now, in: tx)
            }
            try await transactions.read { tx throws in
                #expect(try admin.job(id: first, in: tx)?.state == .available)
                #expect(try admin.job(id: second.id, in: tx)?.state == .cancelled)
            }
            let third = try await transactions.write { tx throws in try stores.enqueuer.enqueue(job, in: tx, now: now) }
            #expect(third.duplicate && third.id == first, "the retried job holds the key again")
        }
    }

    /// Cancelling ends a waiting or running job for good with the reason in its history; the
    /// running job's worker no longer counts, and the job's unique key is free. The service
    /// refuses to cancel a finished job and to delete a running one.
    @Test(arguments: JobsBackend.all)
    func cancellingEndsAJobForGoodAndRecordsWhy(_ backend: JobsBackend) async throws {
        try await JobStoreConformance.withRuntime(backend) { runtime, stores, transactions, clock in
            let now = clock.now()
            let (waiting, running) = try await transactions.write { tx throws in
                (
                    try stores.enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 1), priority: 1, uniqueKey: "x"), in: tx, now: now).id,
                    try stores.enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 2), priority: 0), in: tx, now: now).id
                )
            }
            #expect(try await Self.claim(stores, now: now).map(\.id) == [running])
            clock.advance(by: 5)
            let later = clock.now()
            let admin = stores.admin
            try await transactions.write { tx throws in
                try admin.cancel(id: waiting, reason: "not needed", now: later, in: tx)
                try admin.cancel(id: running, reason: "stop", now: later, in: tx)
            }
            let (a, b) = try await transactions.read { tx throws in
                (try #require(try admin.job(id: waiting, in: tx)), try #require(try admin.job(id: running, in: tx)))
            }
            #expect(a.state == .cancelled)
            #expect(a.finalizedAt == later)
            #expect(a.errors == [JobAttemptError(at: later, attempt: 0, error: "not needed")])
            #expect(b.state == .cancelled)
            #expect(b.leaseUntil == nil)
            #expect(b.errors == [JobAttemptError(at: later, attempt: 1, error: "stop")])
            #expect(try await Self.resolve(stores, running, .complete, now: later) == nil, "the worker's late word is ignored")
            #expect(try await stores.queue.renewLeases([LeaseKey(id: running, attempt: 1)], worker: "w", until: later.addingTimeInterval(30)).isEmpty)
            #expect(try await runtime.service.job(id: running)?.state == .cancelled)
            let reused = try await transactions.write { tx throws in
                try stores.enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 3), uniqueKey: "x"), in: tx, now: later)
            }
            #expect(!reused.duplicate, "a cancelled job frees its key")

            await #expect(throws: JobsError.jobFinished(jobID: waiting, state: "cancelled")) { try await runtime.service.cancel(id: waiting) }
            _ = try await Self.claim(stores, now: later)
            await #expect(throws: JobsError.jobRunning(reused.id)) { try await runtime.service.delete(id: reused.id) }
            try await runtime.service.delete(id: waiting)
            #expect(try await runtime.service.job(id: waiting) == nil)
            #expect(try await runtime.service.list().map(\.id) == [reused.id, running])
            await #expect(throws: JobsError.jobNotFound(waiting)) { try await runtime.service.delete(id: waiting) }
        }
    }

    /// Each queue's jobs counted by state, its oldest ready job, what finished in the last hour
    /// and day, and whether it is paused; a paused queue is not claimed from until resumed.
    @Test(arguments: JobsBackend.all)
    func queueNumbersCountEachQueuesJobsAndPauses(_ backend: JobsBackend) async throws {
        try await JobStoreConformance.withRuntime(backend) { _, stores, transactions, clock in
            let start = clock.now()
            let enqueuer = stores.enqueuer
            let (done, failing) = try await transactions.write { tx throws in
                _ = try enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 1)), in: tx, now: start)
                _ = try enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 2), runAt: start.addingTimeInterval(3600)), in: tx, now: start)
                return (
                    try enqueuer.enqueue(try NewJob(kind: "m", args: Args(n: 3), queue: "mail", priority: 0), in: tx, now: start).id,
                    try enqueuer.enqueue(try NewJob(kind: "m", args: Args(n: 4), queue: "mail", priority: 1, maxAttempts: 1), in: tx, now: start).id
                )
            }
            #expect(try await Self.claim(stores, queue: "mail", limit: 2, now: start).count == 2)
            #expect(try await Self.resolve(stores, done, queue: "mail", kind: "m", .complete, now: start) == .completed)
            #expect(try await Self.resolve(stores, failing, queue: "mail", kind: "m", .fail(message: "no", retryAtMs: 0), now: start) == .discarded)
            clock.advance(by: 120)
            let now = clock.now()
            _ = try await transactions.write { tx throws in try enqueuer.enqueue(try NewJob(kind: "k", args: Args(n: 5)), in: tx, now: now) }

            let admin = stores.admin
            var numbers = try await transactions.read { tx throws in try admin.queueNumbers(now: now, in: tx) }
            let main = try #require(numbers["default"])
            #expect(main.counts == [.available: 2, .scheduled: 1])
            #expect(main.oldestReadyMs == start.millisecondsSince1970, "the job due first of those waiting")
            #expect(Self.finished(main) == [0, 0, 0, 0])
            #expect(!main.paused)
            let mail = try #require(numbers["mail"])
            #expect(mail.counts == [.completed: 1, .discarded: 1])
            #expect(mail.oldestReadyMs == nil)
            #expect(Self.finished(mail) == [1, 1, 1, 1])

            try await transactions.write { tx throws in
                try admin.setPaused(true, queue: "mail", now: now, in: tx)
                try admin.setPaused(true, queue: "idle", now: now, in: tx)
                try admin.setPaused(true, queue: "idle", now: now, in: tx)  // again: still one pause
            }
            _ = try await transactions.write { tx throws in try enqueuer.enqueue(try NewJob(kind: "m", args: Args(n: 6), queue: "mail"), in: tx, now: now) }
            #expect(try await Self.claim(stores, queue: "mail", now: now).isEmpty, "paused")
            try await transactions.read { tx throws in
                #expect(try admin.isPaused("mail", in: tx))
                #expect(try admin.isPaused("idle", in: tx))
                #expect(try !admin.isPaused("default", in: tx))
                #expect(try !admin.isPaused("never-seen", in: tx))
            }
            clock.advance(by: 2 * 3600)
            numbers = try await transactions.read { [now = clock.now()] tx throws in try admin.queueNumbers(now: now, in: tx) }
            #expect(numbers["idle"]?.paused == true)
            #expect(numbers["idle"]?.counts == [:])
            #expect(numbers["mail"]?.paused == true)
            #expect(numbers["mail"].map(Self.finished) == [0, 0, 1, 1])
            #expect(numbers["mail"]?.counts == [.available: 1, .completed: 1, .discarded: 1])

            try await transactions.write { [now = clock.now()] tx throws in try admin.setPaused(false, queue: "mail", now: now, in: tx) }
            #expect(try await transactions.read { tx throws in try admin.isPaused("mail", in: tx) } == false)
            #expect(try await Self.claim(stores, queue: "mail", now: clock.now()).count == 1, "resumed")
        }
    }
}
