import Contracts
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import Foundation
import GRDB
import GatewayCore
import Jobs
import Logging
import Storage
import Synchronization
import Testing
import SQLiteStorage

/// A job system on a fresh SQLite file with a manual clock and fixed jitter, and no background
/// workers unless a test starts them.
struct JobsHarness {
    let directory: URL
    let database: GatewayDatabase
    let clock: ManualClock
    let runtime: JobsRuntime

    init(
        directory: URL? = nil, clock: ManualClock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000)),
        configure: (inout JobsConfiguration) -> Void = { _ in }
    ) throws {
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("jobs-test-\(UUID().uuidString)")
        self.directory = directory
        self.clock = clock
        database = try GatewayDatabase(
            path: directory.appendingPathComponent("gateway.sqlite").path, modules: JobsHarness.modules
        )
        try database.migrate()
        var config = JobsConfiguration()
        config.pollInterval = 0.05
        configure(&config)
        var logger = Logger(label: "jobs-test")
        logger.logLevel = .critical
        runtime = JobsRuntime(transactions: database, stores: .sqlite(database: database), clock: clock, configuration: config, logger: logger, random: { 0.5 })
    }

    static let modules: [any SchemaModule.Type] = [JobsSchema.self]

    var service: JobsService { runtime.service }
    var pool: WorkerPool { runtime.pool }
    var registry: JobRegistry { runtime.registry }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    func enqueue(_ job: NewJob) async throws -> JobEnqueuer.Result { try await service.enqueue(job) }

    func job(_ id: Int64) async throws -> JobRecord {
        try #require(try await service.job(id: id))
    }

    func count(_ sql: String, _ arguments: StatementArguments = []) async throws -> Int {
        try await database.pool.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }
}

typealias Empty = NoPayload

/// Records which handlers ran which jobs, across tasks.
final class RunLog: Sendable {
    private let entries = Mutex<[(job: Int64, attempt: Int, by: String)]>([])

    func record(_ job: Int64, attempt: Int, by: String = "") {
        entries.withLock { $0.append((job, attempt, by)) }
    }

    var all: [(job: Int64, attempt: Int, by: String)] { entries.withLock { $0 } }
    var count: Int { entries.withLock { $0.count } }
}
