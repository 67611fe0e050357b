public import GatewayHTTP
public import Jobs

/// The student web app and the operator console as the application mounts them: routes only
/// (static files), no jobs, no tables. One ``GatewayModule`` like the feature modules, so the
/// application mounts it in the same loop and its tests mount it alone.
public struct WebModule: GatewayModule {
    public let routes: WebRoutes

    /// The pages and files in `assets` (the installed bundle unless a test passes others).
    public init(assets: WebAssets = .installed()) {
        routes = WebRoutes(assets: assets)
    }
}

extension WebRoutes: ModuleRoutes {}
