public import Foundation
import Contracts
public import GatewayCore
public import Storage

/// Enqueueing on its own, and what operators do with jobs, queues and schedules. Used by the
/// admin routes and the `gateway jobs` command. Errors are ``JobsError``s.
public struct JobsService: Sendable {
    /// Runs the transactions; the stores do the storage work inside them.
    public let transactions: any TransactionRunner
    let admin: any JobAdminStoring
    let enqueuer: any JobEnqueuing
    public let clock: any GatewayClock
    public let configuration: JobsConfiguration
    public let schedules: any ScheduleStoring
    let running: RunningJobs
    let signals: JobSignals
    let registry: JobRegistry

    /// A queue as operators see it.
    public struct QueueStatus: Encodable, Sendable, Equatable {
        public let name: String
        public let paused: Bool
        /// How many jobs of this queue may run at once in this process (nil: not worked here).
        public let limit: Int?
        /// The concurrency an operator set for every instance (nil: each instance runs its
        /// configured number).
        public let concurrency: Int?
        /// Each live instance working the queue: its concurrency and its jobs running, as its
        /// last heartbeat said.
        public let instances: [QueueInstance]
        /// Running now, in every process.
        public let running: Int
        /// Jobs per state, every state listed.
        public let counts: [String: Int]
        /// Age of the oldest job that is due and waiting for a worker (0 when none waits).
        public let latencySeconds: Double
        public let completedLastHour: Int
        /// Jobs discarded (failed for good) in the window.
        public let failedLastHour: Int
        public let completedLastDay: Int
        public let failedLastDay: Int
        /// True when jobs wait (available or retryable) but this process does not work the
        /// queue and no job of it runs in any process: most likely nothing works it (a queue
        /// missing from `--job-queues`, or workers switched off everywhere).
        public let unworked: Bool

        public func encode(to encoder: any Encoder) throws {
            enum K: String, CodingKey {
                case name, paused, limit, concurrency, instances, running, counts, latencySeconds, completedLastHour, failedLastHour
                case completedLastDay, failedLastDay, unworked
            }
            var c = encoder.container(keyedBy: K.self)
            try c.encode(name, forKey: .name)
            try c.encode(paused, forKey: .paused)
            try c.encode(limit, forKey: .limit) // null when not worked here: the key is always there
            try c.encode(concurrency, forKey: .concurrency)
            try c.encode(instances, forKey: .instances)
            try c.encode(running, forKey: .running)
            try c.encode(counts, forKey: .counts)
            try c.encode(latencySeconds, forKey: .latencySeconds)
            try c.encode(completedLastHour, forKey: .completedLastHour)
            try c.encode(failedLastHour, forKey: .failedLastHour)
            try c.encode(completedLastDay, forKey: .completedLastDay)
            try c.encode(failedLastDay, forKey: .failedLastDay)
            try c.encode(unworked, forKey: .unworked)
        }
    }

    /// One instance's share of a queue.
    public struct QueueInstance: Encodable, Sendable, Equatable {
        public let instance: String
        public let host: String
        public let pid: Int
        public let concurrency: Int
        public let running: Int
    }

    /// A schedule as operators see it.
    public struct ScheduleStatus: Encodable, Sendable, Equatable {
        public let name: String
        public let kind: String
        public let queue: String
        public let args: JSONValue
        public let cron: String?
        public let intervalSeconds: Int?
        public let timeZone: String
        public let enabled: Bool
        public let nextRunAt: Date?
        public let lastRunAt: Date?
        public let lastJobId: Int64?
        public let lastJobState: JobState?
        /// The tick's error, or the last job's latest error while it is retrying or failed.
        public let lastError: String?

        public func encode(to encoder: any Encoder) throws {
            enum K: String, CodingKey {
                case name, kind, queue, args, cron, intervalSeconds, timeZone, enabled, nextRunAt, lastRunAt
                case lastJobId, lastJobState, lastError
            }
            var c = encoder.container(keyedBy: K.self)
            try c.encode(name, forKey: .name)
            try c.encode(kind, forKey: .kind)
            try c.encode(queue, forKey: .queue)
            try c.encode(args, forKey: .args)
            try c.encode(cron, forKey: .cron)
            try c.encode(intervalSeconds, forKey: .intervalSeconds)
            try c.encode(timeZone, forKey: .timeZone)
            try c.encode(enabled, forKey: .enabled)
            try c.encode(nextRunAt, forKey: .nextRunAt)
            try c.encode(lastRunAt, forKey: .lastRunAt)
            try c.encode(lastJobId, forKey: .lastJobId)
            try c.encode(lastJobState, forKey: .lastJobState)
            try c.encode(lastError, forKey: .lastError)
        }

        package init(name: String, kind: String, queue: String, args: JSONValue, cron: String?, intervalSeconds: Int?, timeZone: String, enabled: Bool, nextRunAt: Date?, lastRunAt: Date?, lastJobId: Int64?, lastJobState: JobState?, lastError: String?) {
            self.name = name
            self.kind = kind
            self.queue = queue
            self.args = args
            self.cron = cron
            self.intervalSeconds = intervalSeconds
            self.timeZone = timeZone
            self.enabled = enabled
            self.nextRunAt = nextRunAt
            self.lastRunAt = lastRunAt
            self.lastJobId = lastJobId
            self.lastJobState = lastJobState
            self.lastError = lastError
        }
    }

    init(
        transactions: any TransactionRunner, admin: any JobAdminStoring, enqueuer: any JobEnqueuing, schedules: any ScheduleStoring,
        clock: any GatewayClock, configuration: JobsConfiguration, running: RunningJobs, signals: JobSignals, registry: JobRegistry
    ) {
        self.signals = signals
        self.registry = registry
        self.transactions = transactions
        self.admin = admin
        self.enqueuer = enqueuer
        self.clock = clock
        self.configuration = configuration
        self.schedules = schedules
        self.running = running
    }

    // MARK: Enqueue

    /// Enqueues in a transaction of its own. Inside your own transaction, call
    /// `JobEnqueuer.enqueue(_:in:now:)` instead, so the job commits with your change.
    @discardableResult
    public func enqueue(_ job: NewJob) async throws -> JobEnqueuer.Result {
        let now = clock.now()
        // A one-row insert: inline when the writer is free (see `writePreferringInline`).
        return try await transactions.writePreferringInline { [enqueuer] db in try enqueuer.enqueue(job, in: db, now: now) }
    }

    // MARK: Jobs

    public func job(id: Int64) async throws -> JobRecord? {
        try await transactions.read { [admin] db in try admin.job(id: id, in: db) }
    }

    /// Newest first. `before` is the id cursor (exclusive).
    public func list(
        states: [JobState]? = nil, queue: String? = nil, kind: String? = nil, before: Int64? = nil, limit: Int = 50
    ) async throws -> [JobRecord] {
        let filter = JobFilter(states: states, queue: queue, kind: kind)
        return try await transactions.read { [admin] db in
            try admin.list(filter, before: before, limit: limit, in: db)
        }
    }

    /// Makes a job available to run now. Finished jobs get one more attempt if they used theirs
    /// up. A running job cannot be retried (409); nor can a finished one whose unique key is
    /// held by another live job (409).
    public func retry(id: Int64) async throws -> JobRecord {
        let now = clock.now()
        let record: JobRecord = try await transactions.write { [admin] db in
            guard let job = try admin.job(id: id, in: db) else { throw Self.noSuchJob(id) }
            switch job.state {
            case .running:
                throw JobsError.jobRunning(id)
            case .available:
                return job
            default:
                try admin.makeAvailable(id: id, now: now, in: db)
                return try admin.job(id: id, in: db)!
            }
        }
        signals.notify(record.queue)
        return record
    }

    /// Cancels a job that has not finished. A running job's task is cancelled where it runs
    /// (at once in this process; at its next lease renewal in another), and whatever it
    /// reports afterwards is ignored. Finished jobs answer 409.
    public func cancel(id: Int64, reason: String = "cancelled by an operator") async throws -> JobRecord {
        let now = clock.now()
        let record: JobRecord = try await transactions.write { [admin] db in
            guard let job = try admin.job(id: id, in: db) else { throw Self.noSuchJob(id) }
            guard !job.state.isFinal else {
                throw JobsError.jobFinished(jobID: id, state: job.state.rawValue)
            }
            try admin.cancel(id: id, reason: reason, now: now, in: db)
            return try admin.job(id: id, in: db)!
        }
        running.cancel(id: id)
        return record
    }

    /// Deletes a job that is not running (409 when it is).
    public func delete(id: Int64) async throws {
        try await transactions.write { [admin] db in
            guard let job = try admin.job(id: id, in: db) else { throw Self.noSuchJob(id) }
            guard job.state != .running else {
                throw JobsError.jobRunning(id)
            }
            try admin.delete(id: id, in: db)
        }
    }

    static func noSuchJob(_ id: Int64) -> JobsError { .jobNotFound(id) }

    // MARK: Queues

    /// Every queue that is configured here, has jobs, or has been paused.
    public func queues() async throws -> [QueueStatus] {
        let now = clock.now()
        let (numbers, beats) = try await transactions.read { [admin] db in
            (try admin.queueNumbers(now: now, in: db), try admin.instances(in: db))
        }
        let live = beats.filter { isAlive($0, now: now) }
        let names = Set(numbers.keys).union(configuration.workersEnabled ? Array(configuration.queues.keys) : [])
        let nowMs = now.millisecondsSince1970
        return names.sorted().map { name in
            let n = numbers[name] ?? .init()
            let limit = configuration.workersEnabled ? configuration.limit(of: name).map { n.concurrency ?? $0 } : nil
            let instances = live.compactMap { beat in
                beat.queues[name].map {
                    QueueInstance(instance: beat.id, host: beat.host, pid: beat.pid, concurrency: $0.concurrency, running: $0.running)
                }
            }
            let waiting = (n.counts[.available] ?? 0) + (n.counts[.retryable] ?? 0)
            return QueueStatus(
                name: name, paused: n.paused, limit: limit, concurrency: n.concurrency, instances: instances,
                running: n.counts[.running] ?? 0,
                counts: Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, n.counts[$0] ?? 0) }),
                latencySeconds: Double(max(0, nowMs - (n.oldestReadyMs ?? nowMs))) / 1000,
                completedLastHour: n.completedLastHour, failedLastHour: n.failedLastHour,
                completedLastDay: n.completedLastDay, failedLastDay: n.failedLastDay,
                unworked: waiting > 0 && limit == nil && (n.counts[.running] ?? 0) == 0
            )
        }
    }

    public func queue(_ name: String) async throws -> QueueStatus {
        if let status = try await queues().first(where: { $0.name == name }) { return status }
        return QueueStatus(
            name: name, paused: false, limit: nil, concurrency: nil, instances: [], running: 0,
            counts: Dictionary(uniqueKeysWithValues: JobState.allCases.map { ($0.rawValue, 0) }), latencySeconds: 0,
            completedLastHour: 0, failedLastHour: 0, completedLastDay: 0, failedLastDay: 0, unworked: false
        )
    }

    /// The queues an operator can act on: those this process is configured to work, those the
    /// registered kinds declare, and those holding jobs or a pause. A made-up name is none of
    /// them (pausing it would only leave a row behind).
    public func knownQueues() async throws -> Set<String> {
        let now = clock.now()
        let numbers = try await transactions.read { [admin] db in try admin.queueNumbers(now: now, in: db) }
        return Set(numbers.keys).union(configuration.queues.keys).union(registry.declaredQueues)
    }

    /// Pauses a queue in every process: no new claims (running jobs finish). Jobs can still be
    /// enqueued to it.
    public func pause(queue: String) async throws {
        try await requireKnown(queue)
        let now = clock.now()
        try await transactions.write { [admin] db in try admin.setPaused(true, queue: queue, now: now, in: db) }
    }

    public func resume(queue: String) async throws {
        try await requireKnown(queue)
        let now = clock.now()
        try await transactions.write { [admin] db in try admin.setPaused(false, queue: queue, now: now, in: db) }
        signals.notify(queue)
    }

    /// Sets how many jobs of `queue` each instance runs at once (nil: each instance's configured
    /// number again). Every instance's workers follow within a second (``Maintenance``).
    public func setConcurrency(queue: String, to concurrency: Int?) async throws {
        try await requireKnown(queue)
        let now = clock.now()
        try await transactions.write { [admin] db in try admin.setConcurrency(concurrency, queue: queue, now: now, in: db) }
    }

    // MARK: Stats

    /// The per-minute counts of the last `windowSeconds`, summed into steps of `stepSeconds` (a
    /// multiple of 60), the last step holding the current minute.
    public func stats(windowSeconds: Int, stepSeconds: Int, queue: String?) async throws -> JobStats {
        let stepMs = Int64(stepSeconds) * 1000
        let currentMinuteEnd = JobStatsCount.minute(of: clock.now()) + 60_000
        let end = (currentMinuteEnd + stepMs - 1) / stepMs * stepMs
        let from = end - Int64(windowSeconds) * 1000
        let counts = try await transactions.read { [admin] db in
            try admin.statsCounts(fromMs: from, untilMs: end, queue: queue, in: db)
        }
        return JobStats.build(
            from: Date(millisecondsSince1970: from), until: Date(millisecondsSince1970: end), stepSeconds: stepSeconds, counts: counts
        )
    }

    // MARK: Instances

    /// Every instance whose worker pool wrote a heartbeat since its row was last pruned, alive
    /// ones first.
    public func instances() async throws -> [JobInstance] {
        let now = clock.now()
        let beats = try await transactions.read { [admin] db in try admin.instances(in: db) }
        let listed = beats.map { JobInstance($0, alive: isAlive($0, now: now)) }
        return listed.filter { $0.state == "alive" } + listed.filter { $0.state != "alive" }
    }

    func isAlive(_ beat: InstanceHeartbeat, now: Date) -> Bool {
        now.timeIntervalSince(beat.at) < configuration.instanceGoneAfter
    }

    func requireKnown(_ queue: String) async throws {
        guard try await knownQueues().contains(queue) else { throw JobsError.queueNotFound(queue) }
    }

    // MARK: Schedules

    public func scheduleStatuses() async throws -> [ScheduleStatus] {
        // Foundation calls UTC "GMT"; operators configured "UTC".
        let zone = configuration.timeZone.identifier == "GMT" ? "UTC" : configuration.timeZone.identifier
        return try await transactions.read { [admin] db in try admin.scheduleStatuses(timeZone: zone, in: db) }
    }

    public func schedule(named name: String) async throws -> ScheduleStatus {
        guard let status = try await scheduleStatuses().first(where: { $0.name == name }) else {
            throw JobsError.scheduleNotFound(name)
        }
        return status
    }

    public func setSchedule(named name: String, enabled: Bool) async throws -> ScheduleStatus {
        guard try await schedules.setEnabled(enabled, name: name, now: clock.now(), timeZone: configuration.timeZone) else {
            throw JobsError.scheduleNotFound(name)
        }
        return try await schedule(named: name)
    }

    /// Enqueues the schedule's job now; its regular runs are unchanged.
    public func runSchedule(named name: String) async throws -> JobRecord {
        guard let result = try await schedules.runNow(name: name, now: clock.now()) else {
            throw JobsError.scheduleNotFound(name)
        }
        guard let job = try await job(id: result.id) else { throw Self.noSuchJob(result.id) }
        return job
    }
}
