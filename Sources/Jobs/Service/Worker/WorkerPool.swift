public import Foundation
import GatewayCore
import Logging
public import ServiceLifecycle
import Synchronization

/// Runs jobs: one ``QueueRunner`` per configured queue, plus lease renewal, the reaper, the
/// scheduler and pruning. A swift-service-lifecycle `Service`: on graceful shutdown it stops
/// claiming, waits up to `shutdownTimeout` for running jobs, then releases their leases.
public final class WorkerPool: Service, Sendable {
    /// What every part of a running pool shares.
    struct Core: Sendable {
        let store: any JobQueueStoring
        let executor: JobExecutor
        let running: RunningJobs
        let clock: any GatewayClock
        let configuration: JobsConfiguration
        let logger: Logger
        /// `host:pid:random`: names this pool in `locked_by`.
        let workerID: String
        /// When this pool was made (its heartbeat row's `started_at`).
        let startedAt: Date
    }

    let core: Core
    let registry: JobRegistry
    let schedules: any ScheduleStoring
    let signals: JobSignals
    let remoteSignals: (any JobSignalSource)?
    private let stopper = Mutex<(@Sendable (TimeInterval) -> Void)?>(nil)
    /// The queue runners while the pool runs.
    private let active = Mutex<[QueueRunner]>([])

    public var workerID: String { core.workerID }

    init(
        store: any JobQueueStoring, schedules: any ScheduleStoring, signals: JobSignals, remoteSignals: (any JobSignalSource)? = nil,
        registry: JobRegistry, running: RunningJobs,
        clock: any GatewayClock, configuration: JobsConfiguration, logger: Logger,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        let workerID = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(UInt32.random(in: 0...UInt32.max).hex)"
        self.core = Core(
            store: store,
            executor: JobExecutor(registry: registry, clock: clock, backoff: configuration.backoff, logger: logger, random: random),
            running: running, clock: clock, configuration: configuration, logger: logger, workerID: workerID,
            startedAt: clock.now()
        )
        self.registry = registry
        self.schedules = schedules
        self.signals = signals
        self.remoteSignals = remoteSignals
    }

    /// Runs until graceful shutdown (or cancellation).
    public func run() async throws {
        let stop = StopSignal()
        let config = core.configuration
        do {
            try await schedules.sync(registry.schedules, now: core.clock.now(), timeZone: config.timeZone)
        } catch {
            core.logger.error("could not write the declared schedules", metadata: ["error": "\(error)"])
        }
        let runners = config.queues.sorted { $0.key < $1.key }.map {
            QueueRunner(queue: $0.key, limit: $0.value, core: core, stop: stop)
        }
        active.withLock { $0 = runners }
        defer { active.withLock { $0 = [] } }
        let byQueue = Dictionary(uniqueKeysWithValues: runners.map { ($0.queue, $0) })
        let token = signals.addListener { queue in byQueue[queue]?.hint() }
        defer { signals.removeListener(token) }
        let signals = self.signals
        let listening = remoteSignals.map { source in Task { await source.listen(ringing: signals) } }
        defer { listening?.cancel() }
        let maintenance = Maintenance(core: core, schedules: schedules, runners: runners)
        let runnersDone = Flag()
        let tick = Duration.milliseconds(Int64(min(1, config.leaseDuration / 4, config.reaperInterval) * 1000))
        core.logger.info(
            "job workers started",
            metadata: ["worker": "\(core.workerID)", "queues": "\(config.queues.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))"]
        )

        // A service must not return before shutdown (the service group would stop the server),
        // even with no queue to work.
        let idle = Doorbell()
        let beginStop: @Sendable (TimeInterval) -> Void = { timeout in
            guard stop.request(timeout: timeout) else { return }
            for runner in runners { runner.bell.ring() }
            idle.ring()
        }
        stopper.withLock { $0 = beginStop }
        defer { stopper.withLock { $0 = nil } }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await maintenance.run(tick: tick) { runnersDone.value }
                    }
                    await withTaskGroup(of: Void.self) { inner in
                        for runner in runners { inner.addTask { await runner.run() } }
                        inner.addTask {
                            while !stop.state.stopping { await idle.wait(timeout: nil) }
                        }
                    }
                    runnersDone.set()
                    maintenance.bell.ring()
                }
            } onGracefulShutdown: {
                beginStop(config.shutdownTimeout)
            }
        } onCancel: {
            beginStop(0)
        }
        // Off the instances list at once rather than after `instanceGoneAfter`.
        try? await core.store.removeInstance(id: core.workerID)
        core.logger.info("job workers stopped", metadata: ["worker": "\(core.workerID)"])
    }

    /// Asks a running pool to stop as on graceful shutdown, waiting up to `timeout` (default:
    /// the configured one) for running jobs. `run()` returns once it has.
    public func shutdown(timeout: TimeInterval? = nil) {
        stopper.withLock { $0 }?(timeout ?? core.configuration.shutdownTimeout)
    }

    /// Runs the jobs of `queue` that are due at the clock's now, one at a time in the calling
    /// task, until none is left or `limit` ran; returns what was recorded. The same claim, run
    /// and record path as the pool's, without background tasks: for tests, the CLI and benchmarks
    /// (like Oban's `drain_queue`).
    @discardableResult
    public func drain(queue: String = "default", limit: Int = .max) async throws -> [FinishedJob] {
        var recorded: [FinishedJob] = []
        while recorded.count < limit {
            let now = core.clock.now()
            let lease = now.addingTimeInterval(core.configuration.leaseDuration)
            let (_, claimed) = try await core.store.finishAndClaim(
                [], queue: queue, limit: 1, worker: core.workerID, now: now, leaseUntil: lease
            )
            guard let job = claimed.first else { break }
            let resolution = await core.executor.execute(job)
            let later = core.clock.now()
            let (finished, _) = try await core.store.finishAndClaim(
                [resolution], queue: queue, limit: 0, worker: core.workerID, now: later, leaseUntil: later
            )
            recorded += finished
        }
        return recorded
    }

    /// Runs one round of the pool's chores now (renew, reap, schedules, prune, gauges), whatever
    /// their intervals: for tests that move a `ManualClock`.
    public func runMaintenance() async {
        let maintenance = Maintenance(core: core, schedules: schedules, runners: active.withLock { $0 })
        var last = Maintenance.LastRuns()
        await maintenance.round(&last)
    }
}

extension WorkerPool {
    /// How many jobs of `queue` this pool runs at once now; nil when it does not work the queue
    /// or is not running.
    public func concurrency(of queue: String) -> Int? {
        active.withLock { $0.first { $0.queue == queue }?.limit }
    }
}

extension UInt32 {
    var hex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: Swift.max(0, 8 - digits.count)) + digits
    }
}

/// A flag set once, readable from any task.
final class Flag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
