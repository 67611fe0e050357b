public import Jobs
public import Storage
public import SQLiteStorage

extension JobsStores {
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
}
