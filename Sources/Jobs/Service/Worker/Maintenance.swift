import GatewayCore
import CoreMetrics
import Foundation
import Logging

/// The worker pool's periodic chores: renewing the leases of running jobs, reaping expired
/// leases (from any process), ticking schedules, pruning, and refreshing the queue gauges.
/// Due times are read from the injected clock, so tests move them with a `ManualClock`.
final class Maintenance: Sendable {
    let core: WorkerPool.Core
    let schedules: any ScheduleStoring
    /// The pool's queue runners, whose concurrency follows the operators' settings.
    let runners: [QueueRunner]
    let bell = Doorbell()

    init(core: WorkerPool.Core, schedules: any ScheduleStoring, runners: [QueueRunner] = []) {
        self.core = core
        self.schedules = schedules
        self.runners = runners
    }

    /// Runs chores until `done` says stop; `tick` is the real-time pause between rounds.
    func run(tick: Duration, done: @Sendable () -> Bool) async {
        var last = LastRuns()
        while !done() && !Task.isCancelled {
            await round(&last)
            await bell.wait(timeout: tick)
        }
    }

    struct LastRuns {
        var renew = Date.distantPast
        var reap = Date.distantPast
        var prune = Date.distantPast
        var metrics = Date.distantPast
        var heartbeat = Date.distantPast
    }

    func round(_ last: inout LastRuns) async {
        let config = core.configuration
        let now = core.clock.now()
        // Every round (at most a second apart): an operator's new concurrency applies here
        // within a second, and the heartbeat says so at once.
        let changed = await applyConcurrency()
        if changed || now.timeIntervalSince(last.heartbeat) >= config.heartbeatInterval {
            last.heartbeat = now
            await heartbeat(now: now)
            await rollUpStats()
        }
        if now.timeIntervalSince(last.renew) >= config.leaseDuration / 3 {
            last.renew = now
            await renewLeases(now: now)
        }
        if now.timeIntervalSince(last.reap) >= config.reaperInterval {
            last.reap = now
            await reap(now: now)
        }
        await tickSchedules(now: now)
        if now.timeIntervalSince(last.prune) >= config.pruneInterval {
            last.prune = now
            await prune(now: now)
        }
        if now.timeIntervalSince(last.metrics) >= config.metricsInterval {
            last.metrics = now
            await refreshGauges(now: now)
        }
    }

    /// Reads the operators' per-queue concurrency and applies it to this pool's runners (the
    /// configured number where none is set); true when a limit changed.
    func applyConcurrency() async -> Bool {
        guard !runners.isEmpty else { return false }
        let settings: [String: Int]
        do {
            settings = try await core.store.queueConcurrency()
        } catch {
            core.logger.error("could not read the queues' concurrency", metadata: ["error": "\(error)"])
            return false
        }
        var changed = false
        for runner in runners where runner.setLimit(settings[runner.queue] ?? runner.configuredLimit) {
            changed = true
            core.logger.info("queue concurrency changed", metadata: ["queue": "\(runner.queue)", "concurrency": "\(runner.limit)"])
        }
        return changed
    }

    /// Writes this pool's heartbeat row (what it runs, per queue) and prunes long-gone rows.
    func heartbeat(now: Date) async {
        let config = core.configuration
        var queues: [String: QueueLoad] = [:]
        for runner in runners { queues[runner.queue] = QueueLoad(concurrency: runner.limit, running: runner.running) }
        let beat = InstanceHeartbeat(
            id: core.workerID, host: ProcessInfo.processInfo.hostName, pid: Int(ProcessInfo.processInfo.processIdentifier),
            version: BuildInfo.version, startedAt: core.startedAt, at: now,
            running: queues.values.reduce(0) { $0 + $1.running }, queues: queues
        )
        do {
            try await core.store.heartbeat(beat, pruneBefore: now.addingTimeInterval(-config.instancePruneAfter))
        } catch {
            core.logger.error("heartbeat failed", metadata: ["error": "\(error)"])
        }
    }

    /// Extends the leases of this process's running jobs; cancels the jobs whose lease is gone
    /// (reaped after a stall, or cancelled by an admin) or could not be renewed in time.
    func renewLeases(now: Date) async {
        let leases = core.running.leases
        guard !leases.isEmpty else { return }
        let until = now.addingTimeInterval(core.configuration.leaseDuration)
        var held: Set<Int64>?
        do {
            held = try await core.store.renewLeases(leases, worker: core.workerID, until: until)
        } catch {
            core.logger.error("lease renewal failed", metadata: ["error": "\(error)"])
        }
        let lost = core.running.renewed(
            leases, held: held, untilMs: until.millisecondsSince1970, nowMs: now.millisecondsSince1970
        )
        if !lost.isEmpty {
            core.logger.warning("jobs lost their lease and were cancelled here", metadata: ["jobs": "\(lost.map(\.id))"])
        }
    }

    func reap(now: Date) async {
        do {
            let reaped = try await core.store.reapExpiredLeases(now: now)
            for job in reaped {
                QueueMetrics.forQueue(job.queue).reaped.increment()
                core.logger.warning(
                    "expired lease: job returned to the queue",
                    metadata: ["job": "\(job.id)", "kind": "\(job.kind)", "state": "\(job.state.rawValue)"]
                )
            }
        } catch {
            core.logger.error("reaper failed", metadata: ["error": "\(error)"])
        }
    }

    func tickSchedules(now: Date) async {
        do {
            for tick in try await schedules.tick(now: now, timeZone: core.configuration.timeZone) {
                core.logger.info("schedule enqueued its job", metadata: ["schedule": "\(tick.schedule)", "job": "\(tick.jobID)"])
            }
        } catch {
            core.logger.error("schedule tick failed", metadata: ["error": "\(error)"])
        }
    }

    func prune(now: Date) async {
        let config = core.configuration
        do {
            let deleted = try await core.store.prune(
                finishedBefore: now.addingTimeInterval(-config.finishedRetention),
                discardedBefore: now.addingTimeInterval(-config.discardedRetention)
            )
            if deleted > 0 { core.logger.info("pruned finished jobs", metadata: ["deleted": "\(deleted)"]) }
            _ = try await core.store.pruneStats(before: now.addingTimeInterval(-config.statsRetention))
        } catch {
            core.logger.error("pruning failed", metadata: ["error": "\(error)"])
        }
    }

    /// Folds the enqueue rows into the per-minute counts (the stats read both, so this only
    /// keeps the enqueue table small).
    func rollUpStats() async {
        do {
            try await core.store.rollUpStats()
        } catch {
            core.logger.error("stats roll-up failed", metadata: ["error": "\(error)"])
        }
    }

    func refreshGauges(now: Date) async {
        guard let readiness = try? await core.store.readiness(now: now) else { return }
        let nowMs = now.millisecondsSince1970
        for queue in Set(readiness.keys).union(core.configuration.queues.keys) {
            let metrics = QueueMetrics.forQueue(queue)
            let entry = readiness[queue]
            metrics.depth.record(entry?.ready ?? 0)
            metrics.latency.record(Double(max(0, nowMs - (entry?.oldestDueMs ?? nowMs))) / 1000)
        }
    }
}
