public import Foundation

/// How the job system runs in this process. `gateway serve` fills it from flags
/// (docs/configuration.md).
public struct JobsConfiguration: Sendable {
    /// Whether this process runs workers, the scheduler and housekeeping. Off, it can still
    /// enqueue and serve the admin endpoints (another process does the work).
    public var workersEnabled = true
    /// Queues this process works, with how many jobs of each may run at once here.
    public var queues: [String: Int] = ["default": 10, "push": 10, "gradebook": 4]
    /// How often an idle queue looks for work enqueued by other processes or coming due.
    /// Enqueues in this process wake the workers at once.
    public var pollInterval: TimeInterval = 1
    /// How long a claim holds a job without renewal. Renewed every third of it while the job
    /// runs; a job whose worker died is back in the queue at most this long after the death
    /// (plus one reaper interval).
    public var leaseDuration: TimeInterval = 30
    /// How often expired leases are looked for.
    public var reaperInterval: TimeInterval = 5
    /// Completed and cancelled jobs are deleted this long after they finished.
    public var finishedRetention: TimeInterval = 24 * 3600
    /// Discarded jobs are kept longer, for post-mortems.
    public var discardedRetention: TimeInterval = 7 * 24 * 3600
    /// The per-minute counts of `GET /v1/admin/jobs/stats` are kept this long.
    public var statsRetention: TimeInterval = 7 * 24 * 3600
    /// How often pruning runs.
    public var pruneInterval: TimeInterval = 300
    /// The time zone cron expressions are read in.
    public var timeZone = TimeZone(identifier: "UTC")!
    /// On shutdown, how long running jobs may finish before their leases are released.
    public var shutdownTimeout: TimeInterval = 15
    /// Retry delays for failed attempts.
    public var backoff = Backoff()
    /// The most jobs one claim takes (a claim never takes more than the free slots).
    public var claimBatch = 250
    /// The shortest time between two writes of a busy queue: outcomes that finish meanwhile are
    /// recorded together with the next claim, in one transaction (a full `claimBatch` of outcomes
    /// is written at once). An idle queue claims as soon as work is enqueued.
    public var linger: TimeInterval = 0.001
    /// How many claimed jobs a queue may hold beyond its concurrency limit, waiting in this
    /// process for a free worker (leased, shown as running). A queue claims ahead only about twice
    /// what its workers got through between its last two writes, so short jobs never wait for a
    /// claim and slow ones are barely claimed ahead (a queue starts one job ahead per worker). 0
    /// claims only for free workers.
    public var prefetch = 500
    /// How often the per-queue gauges (depth, latency) are refreshed.
    public var metricsInterval: TimeInterval = 5
    /// How often a worker pool writes its heartbeat row (`GET /v1/admin/instances`).
    public var heartbeatInterval: TimeInterval = 5
    /// An instance with no heartbeat for this long is listed as gone.
    public var instanceGoneAfter: TimeInterval = 30
    /// A gone instance's row is deleted this long after its last heartbeat.
    public var instancePruneAfter: TimeInterval = 3600

    public init() {}

    /// The concurrency limit of `queue` in this process; nil when it does not work the queue.
    public func limit(of queue: String) -> Int? { queues[queue] }

    /// The concurrencies operators may set per queue (`PATCH /v1/admin/queues/{name}`).
    public static let concurrencyRange = 1...256
}
