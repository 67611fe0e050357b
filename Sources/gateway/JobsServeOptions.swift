import Jobs
import ArgumentParser
import Foundation
import GatewayApp

/// The job-system flags of `gateway serve` (docs/configuration.md).
struct JobsServeOptions: ParsableArguments {
    @Flag(name: .customLong("no-workers"), help: "Run no job workers, scheduler or pruning in this process (GATEWAY_NO_WORKERS=1).")
    var noWorkers = false
    @Option(name: .customLong("job-queues"), help: "Queues to work and their concurrency, as name=limit,... (GATEWAY_JOB_QUEUES). Default: default=10,push=10,gradebook=4")
    var jobQueues: String?
    @Option(name: .customLong("job-poll-ms"), help: "How often idle queues look for jobs from other processes or coming due (GATEWAY_JOB_POLL_MS). Default: 1000")
    var jobPollMs: Int?
    @Option(name: .customLong("job-lease-seconds"), help: "How long a claim holds a job between renewals (GATEWAY_JOB_LEASE_SECONDS). Default: 30")
    var jobLeaseSeconds: Double?
    @Option(name: .customLong("job-time-zone"), help: "Time zone of cron schedules, e.g. America/Los_Angeles (GATEWAY_JOB_TIME_ZONE). Default: UTC")
    var jobTimeZone: String?
    @Option(name: .customLong("job-shutdown-seconds"), help: "On shutdown, how long running jobs may finish before their leases are released (GATEWAY_JOB_SHUTDOWN_SECONDS). Default: 15")
    var jobShutdownSeconds: Double?
    @Option(name: .customLong("job-retention-hours"), help: "Delete completed and cancelled jobs after this many hours (GATEWAY_JOB_RETENTION_HOURS). Default: 24")
    var jobRetentionHours: Double?
    @Option(name: .customLong("job-discarded-retention-hours"), help: "Delete discarded jobs after this many hours (GATEWAY_JOB_DISCARDED_RETENTION_HOURS). Default: 168")
    var jobDiscardedRetentionHours: Double?

    func apply(to config: inout GatewayConfiguration) throws {
        var jobs = config.jobs
        if try noWorkers || Env.bool("no-workers") { jobs.workersEnabled = false }
        if let text = jobQueues ?? Env.string("job-queues") { jobs.queues = try Self.queues(text) }
        if let ms = try jobPollMs ?? Env.int("job-poll-ms") {
            guard ms >= 10 else { throw GatewayCLIError("--job-poll-ms must be at least 10") }
            jobs.pollInterval = Double(ms) / 1000
        }
        if let lease = try jobLeaseSeconds ?? Self.double("job-lease-seconds") {
            guard lease >= 1 else { throw GatewayCLIError("--job-lease-seconds must be at least 1") }
            jobs.leaseDuration = lease
            jobs.reaperInterval = min(jobs.reaperInterval, lease / 2)
        }
        if let zone = jobTimeZone ?? Env.string("job-time-zone") {
            guard let timeZone = TimeZone(identifier: zone) else { throw GatewayCLIError("unknown time zone '\(zone)'") }
            jobs.timeZone = timeZone
        }
        if let seconds = try jobShutdownSeconds ?? Self.double("job-shutdown-seconds") {
            guard seconds >= 0 else { throw GatewayCLIError("--job-shutdown-seconds must not be negative") }
            jobs.shutdownTimeout = seconds
        }
        if let hours = try jobRetentionHours ?? Self.double("job-retention-hours") {
            guard hours > 0 else { throw GatewayCLIError("--job-retention-hours must be positive") }
            jobs.finishedRetention = hours * 3600
        }
        if let hours = try jobDiscardedRetentionHours ?? Self.double("job-discarded-retention-hours") {
            guard hours > 0 else { throw GatewayCLIError("--job-discarded-retention-hours must be positive") }
            jobs.discardedRetention = hours * 3600
        }
        config.jobs = jobs
    }

    /// `default=10,push=20`.
    static func queues(_ text: String) throws -> [String: Int] {
        var queues: [String: Int] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let limit = Int(parts[1]), (1...1000).contains(limit) else {
                throw GatewayCLIError("--job-queues takes name=limit pairs (limit 1-1000), e.g. default=10,push=20; not '\(item)'")
            }
            queues[parts[0]] = limit
        }
        guard !queues.isEmpty else { throw GatewayCLIError("--job-queues needs at least one queue") }
        return queues
    }

    static func double(_ flag: String) throws -> Double? {
        guard let raw = Env.string(flag) else { return nil }
        guard let value = Double(raw) else {
            throw GatewayCLIError("GATEWAY_\(flag.uppercased().replacingOccurrences(of: "-", with: "_")) must be a number, not '\(raw)'")
        }
        return value
    }
}
