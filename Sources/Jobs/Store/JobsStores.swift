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

    /// The stores on the gateway's SQLite file (``JobsSchema``'s tables), with one set of
    /// wake-ups shared by the enqueuer, the schedules and the workers.
    public static func sqlite(database: GatewayDatabase) -> JobsStores {
        let signals = JobSignals()
        return JobsStores(
            queue: SQLiteJobStore(database: database), admin: SQLiteJobAdminStore(),
            schedules: SQLiteScheduleStore(database: database, signals: signals), enqueuer: SQLiteJobEnqueuer(signals: signals),
            signals: signals
        )
    }

    /// The stores on a PostgreSQL database (``JobsSchema``'s PostgreSQL tables), woken across
    /// instances by `LISTEN/NOTIFY`.
    public static func postgres(database: GatewayPostgres) -> JobsStores {
        JobsStores(
            queue: PostgresJobStore(database: database), admin: PostgresJobAdminStore(),
            schedules: PostgresScheduleStore(database: database), enqueuer: PostgresJobEnqueuer(),
            signals: JobSignals(), remoteSignals: PostgresJobDoorbell(database: database)
        )
    }
}
