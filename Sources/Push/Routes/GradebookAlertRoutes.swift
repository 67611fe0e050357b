import Contracts
import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// `/v1/me/push-preferences/gradebook-accounts`: grade alerts per stored gradebook account.
public struct GradebookAlertRoutes: Sendable {
    let preferences: GradebookAlertPreferenceService

    public init(preferences: GradebookAlertPreferenceService) {
        self.preferences = preferences
    }

    struct Body: Decodable {
        let enabled: Bool?
        let categories: [String: Bool]?
    }

    struct View: Encodable {
        let gradebookAccountId: Int64
        let sourceId: Int64
        let sourceName: String
        let username: String
        let enabled: Bool
        let categories: [String: Bool]

        init(_ account: OwnedGradebookAccount, _ preference: GradebookAlertPreference) {
            gradebookAccountId = account.id
            sourceId = account.sourceId
            sourceName = account.sourceName
            username = account.username
            enabled = preference.enabled
            categories = Dictionary(uniqueKeysWithValues: GradebookAlertPreference.categories.map { ($0, !preference.muted.contains($0)) })
        }
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let preferences = self.preferences
        let mine = guarded.group(router, "v1/me/push-preferences/gradebook-accounts", access: .authenticated)
        mine.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(["items": try await preferences.preferences(accountID: identity.accountID).map(View.init)])
        }
        mine.put(":gradebookAccountId") { request, context in
            let identity = try context.requireIdentity()
            guard let raw = context.parameters.get("gradebookAccountId"), let id = Int64(raw), id > 0 else {
                throw PushError.gradebookAccountNotFound
            }
            let body = try await GatewayJSON.decode(Body.self, from: request, context: context)
            let (account, preference) = try await preferences.replace(
                accountID: identity.accountID, gradebookAccountID: id, enabled: body.enabled ?? true, categories: body.categories ?? [:]
            )
            return try GatewayJSON.response(View(account, preference))
        }
    }
}
