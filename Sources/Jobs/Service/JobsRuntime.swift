import Foundation
public import GatewayCore
public import Logging
public import Storage

/// The job system of one process: the handler registry, the operator service and the worker
/// pool, built once by the composition root.
///
/// Other modules register handlers and schedules on ``registry`` and enqueue with
/// ``enqueuer`` inside their own transactions (or ``JobsService/enqueue(_:)``).
public final class JobsRuntime: Sendable {
    public let registry: JobRegistry
    public let service: JobsService
    public let pool: WorkerPool
    public let configuration: JobsConfiguration
    /// Enqueueing inside another module's transaction: the job commits with the change.
    public let enqueuer: any JobEnqueuing

    /// The job system on `stores`: the composition root passes ``JobsStores/sqlite(database:)``
    /// (or another backend's stores) and hands ``enqueuer`` to the modules that enqueue.
    public init(
        transactions: any TransactionRunner, stores: JobsStores, clock: any GatewayClock, configuration: JobsConfiguration,
        logger: Logger = Logger(label: "jobs"),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        var logger = logger
        logger[metadataKey: "component"] = "jobs"
        let running = RunningJobs()
        let registry = JobRegistry()
        self.registry = registry
        self.configuration = configuration
        self.enqueuer = stores.enqueuer
        self.service = JobsService(
            transactions: transactions, admin: stores.admin, enqueuer: stores.enqueuer, schedules: stores.schedules,
            clock: clock, configuration: configuration, running: running, signals: stores.signals, registry: registry
        )
        self.pool = WorkerPool(
            store: stores.queue, schedules: stores.schedules, signals: stores.signals, remoteSignals: stores.remoteSignals, registry: registry,
            running: running, clock: clock, configuration: configuration, logger: logger, random: random
        )
    }
}
