public import Storage

/// The Jobs module's tables: the durable queue, recurring schedules, and per-queue settings.
///
/// Times are integer milliseconds since the Unix epoch, so the claim query compares integers.
public enum JobsSchema: ModuleSchema {
    public static let tables = ["jobs", "job_schedules", "job_queues", "job_instances", "job_stats", "job_stats_enqueued"]
}
