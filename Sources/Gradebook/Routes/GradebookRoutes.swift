public import GatewayHTTP
public import Hummingbird

/// Every HTTP route of the Gradebook module: the Cal Poly compatibility proxy at
/// `/gradebook/{sourceId}/`, the normalised `/v1/gradebook/...`, sources for admins, stored
/// accounts and `/v1/me/grades` for students. The composition root mounts them and adds ``errorRenderer``.
public struct GradebookRoutes: ModuleRoutes {
    let gradebooks: GradebookService
    let sources: GradebookSourceService
    let accounts: GradebookAccountService
    let myGrades: MyGradesService
    let canvasOAuth: CanvasOAuthService

    public init(
        gradebooks: GradebookService, sources: GradebookSourceService, accounts: GradebookAccountService, myGrades: MyGradesService,
        canvasOAuth: CanvasOAuthService
    ) {
        self.canvasOAuth = canvasOAuth
        self.gradebooks = gradebooks
        self.sources = sources
        self.accounts = accounts
        self.myGrades = myGrades
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        GradebookCompatRoutes(service: gradebooks).register(with: guarded, on: router)
        GradebookV1Routes(service: gradebooks, authenticator: guarded.authenticator, canvasOAuth: canvasOAuth).register(with: guarded, on: router)
        GradebookAdminRoutes(service: sources).register(with: guarded, on: router)
        GradebookAccountRoutes(service: accounts, canvasOAuth: canvasOAuth).register(with: guarded, on: router)
        CanvasOAuthRoutes(service: canvasOAuth).register(with: guarded, on: router)
        MyGradesRoutes(service: myGrades).register(with: guarded, on: router)
    }

    /// Errors under `/gradebook/` answer as the protocol's clients expect (status, JSON string).
    public static var errorRenderer: ErrorRenderer { GradebookCompatRoutes.errorRenderer }
}
