import GatewayCore
import Catalog
import GatewayHTTP
import Hummingbird

/// `POST /v1/scheduling/builds`: public, rate-limited per client address.
struct BuildRoutes: Sendable {
    let service: BuildService

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        guarded.group(router, "v1/scheduling", access: .public).post("builds") { request, context in
            let body = try await GatewayJSON.decode(BuildRequestBody.self, from: request, context: context)
            let checked = try body.checked()
            let (outcome, snapshot) = try await service.build(checked, clientAddress: context.clientAddress)
            return try GatewayJSON.response(BuildViews.Outcome(outcome, term: checked.term, snapshot: snapshot))
        }
    }
}
