public import Jobs
public import Storage
public import PostgresStorage

extension JobsStores {
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
