public import Hummingbird

/// A module's HTTP routes, as the composition root mounts them: behind the shared middleware,
/// each group declaring its access level through the ``RouteGuard`` (which records it in the
/// route registry, so nothing is mounted without one).
public protocol ModuleRoutes: Sendable {
    /// Adds the routes to `router`, each group made by `guarded`.
    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>)
}
