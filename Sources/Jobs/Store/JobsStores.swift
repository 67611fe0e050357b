public import Storage

/// Everything the job system keeps, as one value per backend: the seam where a second backend
/// plugs in. ``JobsRuntime`` receives these and never makes a store itself.
public struct JobsStores: Sendable {
    /// Claims, leases, completion and the reaper (the workers' side).
    public var queue: any JobQueueStoring
    /// Listings, counts and operator actions (the console's side).
    public var admin: any JobAdminStoring
    /// Recurring schedules and their ticks.
    public var schedules: any ScheduleStoring
    /// Enqueueing inside another module's transaction.
    public var enqueuer: any JobEnqueuing
    /// This process's wake-ups, rung when an enqueue commits.
    public var signals: JobSignals
    /// Wake-ups from other processes, when the backend carries them (PostgreSQL's `NOTIFY`).
    public var remoteSignals: (any JobSignalSource)?

    public init(
        queue: any JobQueueStoring, admin: any JobAdminStoring, schedules: any ScheduleStoring, enqueuer: any JobEnqueuing,
        signals: JobSignals, remoteSignals: (any JobSignalSource)? = nil
    ) {
        self.queue = queue
        self.admin = admin
        self.schedules = schedules
        self.enqueuer = enqueuer
        self.signals = signals
        self.remoteSignals = remoteSignals
    }
}
