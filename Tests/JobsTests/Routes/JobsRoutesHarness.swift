import Jobs
import PostgresStores
import SQLiteStores
import Storage
import TestSupport

/// The Jobs module alone on a router (its admin routes and the diagnostic kinds), on a fresh
/// database of either backend with the jobs tables only; its workers are off unless `configure`
/// turns them on, so tests run jobs with `drain()`.
typealias JobsRoutesHarness = ModuleHarness<JobsModule>

extension ModuleHarness where Module == JobsModule {
    static func make(
        _ backend: TestBackend, configure: (inout JobsConfiguration) -> Void = { _ in }
    ) async throws -> JobsRoutesHarness {
        var configuration = JobsConfiguration()
        configuration.workersEnabled = false
        configure(&configuration)
        let settings = configuration
        return try await make(backend, label: "jobs-routes", sqlite: [JobsSchema.self], postgres: [JobsSchema.self]) { transactions, opened, clock in
            let module = JobsModule(runtime: JobsRuntime(transactions: transactions, stores: .on(opened), clock: clock, configuration: settings))
            try module.register(in: module.runtime.registry)
            return module
        }
    }
}

extension JobsStores {
    /// The job stores on an opened test database of either backend.
    static func on(_ opened: TestBackend.OpenedBackend) -> JobsStores {
        switch opened {
        case .sqlite(let database): .sqlite(database: database)
        case .postgres(let database): .postgres(database: database)
        }
    }
}
