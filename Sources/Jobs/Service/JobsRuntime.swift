import Foundation
public import GatewayCore
public import Logging
public import Storage

/// The job system of one process: the handler registry, the operator service and the worker
/// pool, built once by the composition root.
///
/// Other modules register handlers and schedules on ``registry`` and enqueue with
/// `JobEnqueuer.enqueue(_:in:now:)` inside their own transactions (or ``JobsService/enqueue(_:)``).
public final class JobsRuntime: Sendable {
    public let registry: JobRegistry
    public let service: JobsService
    public let pool: WorkerPool
    public let configuration: JobsConfiguration

    public init(
        database: GatewayDatabase, clock: any GatewayClock, configuration: JobsConfiguration,
        logger: Logger = Logger(label: "jobs"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        var logger = logger
        logger[metadataKey: "component"] = "jobs"
        let running = RunningJobs()
        let registry = JobRegistry()
        self.registry = registry
        self.configuration = configuration
        let schedules = SQLiteScheduleStore(database: database)
        self.service = JobsService(
            transactions: database, admin: SQLiteJobAdminStore(), enqueuer: SQLiteJobEnqueuer(), schedules: schedules,
            clock: clock, configuration: configuration, running: running
        )
        self.pool = WorkerPool(
            store: SQLiteJobStore(database: database), schedules: schedules, registry: registry,
            running: running, clock: clock, configuration: configuration, logger: logger, random: random
        )
    }
}
