import GatewayHTTP
import ArgumentParser
import Foundation
import GatewayApp
import GatewayCore
import Jobs
import Logging
import PostgresStores
import SQLiteStores
import Storage

/// `gateway jobs list|retry|cancel`: operator commands on the job queue, against the database
/// directly (servers may be running: the database handles the concurrency).
struct Jobs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "Inspect and manage background jobs.",
        subcommands: [JobsList.self, JobsRetry.self, JobsCancel.self]
    )

    /// The job service on the database, without workers.
    static func service(database: String?) throws -> JobsService {
        let logger = Logger(label: "jobs-cli")
        let storage = try GatewayStorage.open(try Env.databaseLocation(database), connections: 2, logger: logger)
        try storage.migrate()
        var config = JobsConfiguration()
        config.workersEnabled = false
        let stores: JobsStores = switch storage {
        case .sqlite(let database): .sqlite(database: database)
        case .postgres(let database): .postgres(database: database)
        }
        return JobsRuntime(transactions: storage.transactions, stores: stores, clock: SystemClock(), configuration: config, logger: logger).service
    }

    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as any ProblemConvertible {
            throw GatewayCLIError(error.problem.description)
        }
    }
}

struct JobsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List jobs, newest first.")

    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Option(help: "Only these states, comma-separated (available, scheduled, running, retryable, completed, discarded, cancelled).") var state: String?
    @Option(help: "Only this queue.") var queue: String?
    @Option(help: "Only this kind.") var kind: String?
    @Option(help: "At most this many jobs. Default: 50") var limit: Int = 50
    @Flag(help: "One JSON object per line instead of a table.") var json = false

    func run() async throws {
        let states = try state.map { text in
            try text.split(separator: ",").map { part in
                guard let state = JobState(rawValue: String(part)) else { throw GatewayCLIError("unknown state '\(part)'") }
                return state
            }
        }
        guard limit >= 1 else { throw GatewayCLIError("--limit must be at least 1") }
        let service = try Jobs.service(database: database)
        let jobs = try await Jobs.run { try await service.list(states: states, queue: queue, kind: kind, limit: limit) }
        if json {
            let encoder = GatewayJSON.encoder()
            for job in jobs { print(String(decoding: try encoder.encode(job), as: UTF8.self)) }
            return
        }
        print(Self.row(["ID", "STATE", "QUEUE", "KIND", "ATTEMPT", "SCHEDULED", "LAST ERROR"]))
        for job in jobs {
            print(Self.row([
                "\(job.id)", job.state.rawValue, job.queue, job.kind, "\(job.attempt)/\(job.maxAttempts)",
                ISO8601.string(from: job.scheduledAt), job.errors.last.map { String($0.error.prefix(60)) } ?? "",
            ]))
        }
    }

    static func row(_ cells: [String]) -> String {
        let widths = [8, 10, 12, 24, 8, 21]
        return cells.enumerated().map { index, cell in
            index < widths.count ? cell.padding(toLength: max(widths[index], cell.count), withPad: " ", startingAt: 0) : cell
        }.joined(separator: " ")
    }
}

/// What `jobs retry` and `jobs cancel` take: the database and one job's id.
struct OneJob: ParsableArguments {
    @Option(help: "A SQLite file, or a postgres:// URL (GATEWAY_DATABASE). Default: ./data/gateway.sqlite") var database: String?
    @Argument(help: "The job's id.") var id: Int64

    /// Runs `change` on the job and prints the state it is in afterwards.
    func apply(_ change: @Sendable @escaping (JobsService, Int64) async throws -> JobRecord) async throws {
        let service = try Jobs.service(database: database)
        let id = self.id
        let job = try await Jobs.run { try await change(service, id) }
        print("Job \(job.id) (\(job.kind)) is \(job.state.rawValue).")
    }
}

struct JobsRetry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Make a job available to run now.")

    @OptionGroup var job: OneJob

    func run() async throws { try await job.apply { try await $0.retry(id: $1) } }
}

struct JobsCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a job that has not finished.")

    @OptionGroup var job: OneJob

    func run() async throws { try await job.apply { try await $0.cancel(id: $1) } }
}
