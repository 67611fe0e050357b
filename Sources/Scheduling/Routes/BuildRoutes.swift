import GatewayCore
import Catalog
import GatewayHTTP
import Hummingbird

/// `POST /v1/scheduling/builds`: public, rate-limited per client address; `eligibleOnly` needs
/// the caller's bearer token.
struct BuildRoutes: Sendable {
    let service: BuildService

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service, authenticator = guarded.authenticator
        guarded.group(router, "v1/scheduling", access: .public).post("builds") { request, context in
            let body = try await GatewayJSON.decode(BuildRequestBody.self, from: request, context: context)
            let checked = try body.checked()
            // Only an eligibleOnly build needs the caller: their eligibility decides what is left out.
            let personal = checked.eligibleOnly || checked.withFriends
            let identity = personal ? try await authenticator.authenticate(request, context: context) : nil
            if personal, identity == nil { throw Problem.unauthenticated() }
            let built = try await service.build(checked, clientAddress: context.clientAddress, accountID: identity?.accountID)
            return try GatewayJSON.response(BuildViews.Outcome(built.outcome, term: checked.term, snapshot: built.snapshot, ineligible: checked.eligibleOnly ? built.ineligible : nil,
                sharedWithFriends: built.sharedWithFriends, friendNames: built.friendNames))
        }
    }
}
