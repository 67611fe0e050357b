import Catalog
public import GatewayHTTP
import GatewayCore
public import Hummingbird

/// Every HTTP route of the Registration module: the SDSU protocol at `/registration/`, the
/// student's own registration under `/v1/me/registration`, the public settings at
/// `/v1/registration/settings`, admin catalog management, and the registrar's seat feed
/// (`/v1/registrar/seat-status`). The composition root mounts them with ``register(with:on:)`` and adds
/// ``errorRenderer`` for the SDSU prefix.
public struct RegistrationRoutes: ModuleRoutes {
    let service: RegistrationService

    /// Where admins upload catalog files: the composition root gives it a larger body limit.
    public static let importPath = "/v1/admin/registration/imports"

    /// Where the registrar posts seat status (``V1RegistrarRoutes``).
    public static let registrarFeedPath = "/v1/registrar/seat-status"

    public init(service: RegistrationService) {
        self.service = service
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        SDSURoutes(service: service).register(with: guarded, on: router)
        V1EnrollmentRoutes(service: service).register(with: guarded, on: router)
        V1SettingsRoutes(service: service).register(with: guarded, on: router)
        V1AdminRoutes(service: service).register(with: guarded, on: router)
        V1EligibilityRoutes(service: service).register(with: guarded, on: router)
        V1RegistrarRoutes(service: service, deliveries: RateLimit(limit: 120, window: 60)).register(with: guarded, on: router)
    }

    /// Errors under `/registration/` answer as the SDSU server did (HTML 404, JSON 400).
    public static var errorRenderer: ErrorRenderer { SDSUResponses.errorRenderer }
}
