public import GatewayHTTP
public import Storage
public import ServiceLifecycle

/// One feature module, as the application composes it. Each feature target (Auth, Catalog,
/// Registration, Scheduling, Gradebook, Push, Jobs, Web) declares one value of this protocol, built by
/// its `live` factory from what it consumes, and hands the application everything the module
/// has: its routes, its background services, and how its
/// compatibility protocols answer errors. `GatewayApplication` loops over its modules and
/// names none of these things itself.
///
/// It lives in a target of its own, below Jobs: a module that runs jobs conforms to Jobs'
/// `JobRunningModule` as well, and only such a module depends on Jobs.
///
/// A module hands over its schema (``schema``: the tables it owns); its migrations belong to
/// the store drivers (`SQLiteStores`, `PostgresStores`), which extend the same type and which
/// the feature targets never see. The composition root migrates the schemas of its modules, in
/// their order, on the backend it opened.
public protocol GatewayModule: Sendable {
    associatedtype Routes: ModuleRoutes

    /// The module's tables (nil: it keeps none).
    static var schema: (any ModuleSchema.Type)? { get }

    /// The module's HTTP routes.
    var routes: Routes { get }

    /// Services that run beside the HTTP server for as long as it runs (a change feed, workers).
    var backgroundServices: [any Service] { get }

    /// How errors under the module's compatibility protocols' paths are answered (in the
    /// protocol's own form, never problem+json).
    var errorRenderers: [ErrorRenderer] { get }

    /// Paths whose requests may carry an upload as large as an import (`--max-import-bytes`),
    /// where every other request is held to `--max-body-bytes`.
    var importPaths: [String] { get }
}

extension GatewayModule {
    public static var schema: (any ModuleSchema.Type)? { nil }
    public var backgroundServices: [any Service] { [] }
    public var errorRenderers: [ErrorRenderer] { [] }
    public var importPaths: [String] { [] }
}
