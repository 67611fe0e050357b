public import GatewayHTTP
public import Hummingbird
public import ModuleKit

/// The student web app, the operator console and the API reference as the application mounts
/// them: routes only (static files and pages), no jobs, no tables. One ``GatewayModule`` like
/// the feature modules, so the application mounts it in the same loop and its tests mount it alone.
public struct WebModule: GatewayModule {
    public let routes: WebPages

    /// The pages and files in `assets` and `reference` (the installed bundle's `Public` and
    /// `Reference` folders unless a test passes others).
    public init(assets: WebAssets = .installed(), reference: WebAssets = .installed("Reference")) {
        routes = WebPages(app: WebRoutes(assets: assets), reference: ReferenceRoutes(assets: reference))
    }
}

/// The app and console (``WebRoutes``) and the reference (``ReferenceRoutes``), mounted together.
public struct WebPages: ModuleRoutes {
    public let app: WebRoutes
    public let reference: ReferenceRoutes

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        app.register(with: guarded, on: router)
        reference.register(with: guarded, on: router)
    }
}

extension WebRoutes: ModuleRoutes {}
