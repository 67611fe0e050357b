public import Contracts
public import Foundation

/// What operators read and do with jobs, queues and schedules, behind a protocol
/// (``SQLiteJobAdminStore`` on SQLite). Every method runs inside the caller's transaction.
public protocol JobAdminStoring: Sendable {
    func job(id: Int64, in transaction: any StoreTransaction) throws -> JobRecord?
    /// Jobs matching `filter`, newest first, before id `before`.
    func list(_ filter: JobFilter, before: Int64?, limit: Int, in transaction: any StoreTransaction) throws -> [JobRecord]
    /// How many jobs match `filter`, counting no further than `limit`.
    func count(_ filter: JobFilter, upTo limit: Int, in transaction: any StoreTransaction) throws -> Int
    /// Sets a waiting job's run time to `now`.
    func runNow(id: Int64, now: Date, in transaction: any StoreTransaction) throws
    func queueNumbers(now: Date, in transaction: any StoreTransaction) throws -> [String: QueueNumbers]
    func setPaused(_ paused: Bool, queue: String, now: Date, in transaction: any StoreTransaction) throws
    func isPaused(_ queue: String, in transaction: any StoreTransaction) throws -> Bool
    /// Sets how many jobs of `queue` one instance runs at once (nil: each instance's configured
    /// number again).
    func setConcurrency(_ concurrency: Int?, queue: String, now: Date, in transaction: any StoreTransaction) throws
    /// The counts of `job_stats` (and the enqueues not rolled up yet) for the minutes from
    /// `fromMs` up to `untilMs`, of one queue or all.
    func statsCounts(fromMs: Int64, untilMs: Int64, queue: String?, in transaction: any StoreTransaction) throws -> [JobStatsCount]
    /// Every instance's last heartbeat, oldest start first.
    func instances(in transaction: any StoreTransaction) throws -> [InstanceHeartbeat]
    /// Every schedule with its last job's state and error, by name.
    func scheduleStatuses(timeZone zone: String, in transaction: any StoreTransaction) throws -> [JobsService.ScheduleStatus]
    /// Makes a finished or waiting job available again now; ``JobsError/uniqueKeyTaken(jobID:)``
    /// when another live job holds its unique key.
    func makeAvailable(id: Int64, now: Date, in transaction: any StoreTransaction) throws
    /// Cancels a job for good, recording why in its error history.
    func cancel(id: Int64, reason: String, now: Date, in transaction: any StoreTransaction) throws
    func delete(id: Int64, in transaction: any StoreTransaction) throws
}
