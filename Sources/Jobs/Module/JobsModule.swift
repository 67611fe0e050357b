public import ModuleKit
public import Storage
public import GatewayHTTP
public import ServiceLifecycle

/// The job system as a module of the application: its runtime (the registry every module
/// registers its kinds in, the enqueuer they write through, the workers), the operator's routes
/// under `/v1/admin/jobs`, and its workers as a background service when this instance runs
/// them (`--workers`).
public struct JobsModule: JobRunningModule {
    /// The module's tables (its migrations are the store drivers').
    public static var schema: (any ModuleSchema.Type)? { JobsSchema.self }

    public let runtime: JobsRuntime

    public init(runtime: JobsRuntime) {
        self.runtime = runtime
    }

    public var routes: JobsAdminRoutes { JobsAdminRoutes(runtime: runtime) }

    /// The diagnostic kinds operators enqueue to check the workers (``Diagnostics``).
    public func register(in registry: JobRegistry) throws {
        Diagnostics.register(in: registry)
    }

    public var backgroundServices: [any Service] {
        runtime.configuration.workersEnabled ? [runtime.pool] : []
    }
}
