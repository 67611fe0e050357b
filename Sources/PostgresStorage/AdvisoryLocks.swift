public import Storage
/// Every advisory lock key the gateway takes on PostgreSQL, in one place so that two uses can
/// never share a key by accident (a shared key would make one wait for the other for good). The
/// same number in every instance; "gatewa" in ASCII, then the use.
public enum AdvisoryLocks {
    /// Migrations, one instance at a time (transaction-level).
    public static let migrations: Int64 = 0x6761_7465_7761_7901
    /// The leader that ticks the recurring schedules (session-level, held while it leads).
    public static let scheduleLeader: Int64 = 0x6761_7465_7761_7902
    /// Seeding a demo database, one instance after another (session-level, while seeding).
    public static let demoSeed: Int64 = 0x6761_7465_7761_7903
    /// Registration's group-commit writers, one batch at a time over all instances (session-level,
    /// around each batch's transaction): a class everyone races for would otherwise abort most
    /// batches for conflicts and run them again.
    public static let registrationWriter: Int64 = 0x6761_7465_7761_7904
}
