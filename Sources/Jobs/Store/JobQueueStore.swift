public import Foundation

/// What the workers need from storage. ``SQLiteJobStore`` implements it on the service's
/// SQLite file; another backend (PostgreSQL with `FOR UPDATE SKIP LOCKED`) would implement the
/// same promises:
/// - a claim is atomic: a job is handed to one worker at a time, with a lease;
/// - every outcome is recorded only while the worker still holds that lease;
/// - expired leases are returned to the queue.
public protocol JobQueueStoring: Sendable {
    /// Records outcomes, then claims up to `limit` ready jobs of `queue` (none when `limit` is
    /// 0), in one write transaction.
    func finishAndClaim(
        _ resolutions: [JobResolution], queue: String, limit: Int, worker: String, now: Date, leaseUntil: Date
    ) async throws -> (finished: [FinishedJob], claimed: [ClaimedJob])

    /// Extends the leases the worker still holds; returns the ids it still holds.
    func renewLeases(_ leases: [LeaseKey], worker: String, until: Date) async throws -> Set<Int64>

    /// Returns running jobs whose lease expired to the queue (or discards them when they used
    /// up their attempts), recording the lost attempt in their errors.
    func reapExpiredLeases(now: Date) async throws -> [ReapedJob]

    /// Deletes completed and cancelled jobs finalized before `finishedBefore`, and discarded ones
    /// finalized before `discardedBefore`. Returns how many were deleted.
    func prune(finishedBefore: Date, discardedBefore: Date) async throws -> Int

    /// Per-queue numbers for the metrics: ready jobs and the oldest ready job's due time.
    func readiness(now: Date) async throws -> [String: (ready: Int, oldestDueMs: Int64?)]

    /// The concurrency operators set per queue (`PATCH /v1/admin/queues/{name}`), by queue name;
    /// queues left at each instance's configured number are absent.
    func queueConcurrency() async throws -> [String: Int]

    /// Writes this instance's heartbeat row (`job_instances`), and deletes the rows of
    /// instances with no heartbeat since `pruneBefore`.
    func heartbeat(_ beat: InstanceHeartbeat, pruneBefore: Date) async throws

    /// Deletes an instance's row (its pool stopped cleanly).
    func removeInstance(id: String) async throws

    /// Moves the enqueue rows (`job_stats_enqueued`, one per job, written in the enqueuing
    /// transaction without contention) into the per-minute counts of `job_stats`.
    func rollUpStats() async throws

    /// Deletes the counts of minutes before `before`; returns how many rows went.
    func pruneStats(before: Date) async throws -> Int
}
