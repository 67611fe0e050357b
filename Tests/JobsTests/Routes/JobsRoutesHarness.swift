import Jobs
import PostgresStores
import SQLiteStores
import TestSupport

/// The Jobs module alone on a router (its admin routes and the diagnostic kinds), on a fresh
/// database of either backend with the jobs tables only; its workers are off, so tests run
/// jobs with `drain()`.
typealias JobsRoutesHarness = ModuleHarness<JobsModule>

extension ModuleHarness where Module == JobsModule {
    static func make(_ backend: TestBackend) async throws -> JobsRoutesHarness {
        try await make(backend, label: "jobs-routes", sqlite: [JobsSchema.self], postgres: [JobsSchema.self]) { transactions, opened, clock in
            var configuration = JobsConfiguration()
            configuration.workersEnabled = false
            let stores: JobsStores
            switch opened {
            case .sqlite(let database): stores = .sqlite(database: database)
            case .postgres(let database): stores = .postgres(database: database)
            }
            let module = JobsModule(runtime: JobsRuntime(transactions: transactions, stores: stores, clock: clock, configuration: configuration))
            try module.register(in: module.runtime.registry)
            return module
        }
    }
}
