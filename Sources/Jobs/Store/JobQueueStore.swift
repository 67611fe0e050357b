public import Foundation

/// What the workers need from storage. ``SQLiteJobStore`` implements it on the service's
/// SQLite file; another backend (PostgreSQL with `FOR UPDATE SKIP LOCKED`) would implement the
/// same promises:
/// - a claim is atomic: a job is handed to one worker at a time, with a lease;
/// - every outcome is recorded only while the worker still holds that lease;
/// - expired leases are returned to the queue.
public protocol JobQueueStore: Sendable {
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
}

/// Identifies one claim of a job: the id and the attempt number the claim gave it.
public struct LeaseKey: Sendable, Hashable {
    public let id: Int64
    public let attempt: Int
    public init(id: Int64, attempt: Int) {
        self.id = id
        self.attempt = attempt
    }
}

/// The recorded result of a resolution; `state` is nil when the worker no longer held the
/// lease (the job was reaped, cancelled or deleted meanwhile) and nothing was written.
public struct FinishedJob: Sendable {
    public let resolution: JobResolution
    public let state: JobState?
}

/// A job whose lease expired, with the state it was put in.
public struct ReapedJob: Sendable, Equatable {
    public let id: Int64
    public let queue: String
    public let kind: String
    public let state: JobState

    public init(id: Int64, queue: String, kind: String, state: JobState) {
        self.id = id
        self.queue = queue
        self.kind = kind
        self.state = state
    }
}
