import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// `/v1/me/push-preferences`: read and replace the caller's notification preferences.
public struct PreferenceRoutes: Sendable {
    let preferences: PreferenceService

    public init(preferences: PreferenceService) {
        self.preferences = preferences
    }

    struct Body: Decodable {
        struct Quiet: Decodable {
            let start: String?
            let end: String?
            let timeZone: String?
        }

        let categories: [String: Bool]?
        let quietHours: Quiet?
        let maxPerHour: Int?

        enum CodingKeys: String, CodingKey { case categories, quietHours, maxPerHour }

        /// `quietHours` may be null (none); `categories` and `maxPerHour` may be left out but
        /// never null, as the contract says.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            categories = try container.decodeUnlessAbsent([String: Bool].self, forKey: .categories)
            quietHours = try container.decodeIfPresent(Quiet.self, forKey: .quietHours)
            maxPerHour = try container.decodeUnlessAbsent(Int.self, forKey: .maxPerHour)
        }
    }

    /// The JSON shape: every optional category with its switch, quiet hours or null, the budget.
    struct View: Encodable {
        struct Quiet: Encodable {
            let start: String
            let end: String
            let timeZone: String
        }

        let categories: [String: Bool]
        let quietHours: Quiet?
        let maxPerHour: Int

        init(_ preferences: NotificationPreferences) {
            categories = Dictionary(uniqueKeysWithValues: NotificationPreferences.optionalCategories.map { ($0, preferences.wants($0)) })
            quietHours = preferences.quietHours.map {
                Quiet(start: QuietHours.text($0.start), end: QuietHours.text($0.end), timeZone: $0.timeZone.identifier)
            }
            maxPerHour = preferences.maxPerHour
        }

        enum CodingKeys: String, CodingKey { case categories, quietHours, maxPerHour }

        /// `quietHours` is always present: null when there are none.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(categories, forKey: .categories)
            try container.encode(quietHours, forKey: .quietHours)
            try container.encode(maxPerHour, forKey: .maxPerHour)
        }
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let preferences = self.preferences
        let mine = guarded.group(router, "v1/me/push-preferences", access: .authenticated)
        mine.get { _, context in
            let identity = try context.requireIdentity()
            return try GatewayJSON.response(View(try await preferences.preferences(accountID: identity.accountID)))
        }
        mine.put { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(Body.self, from: request, context: context)
            if request.headers[.ifMatch] != nil {
                try IfMatch.check(request, current: View(try await preferences.preferences(accountID: identity.accountID)))
            }
            let update = PreferenceService.Update(
                categories: body.categories ?? [:], quietStart: body.quietHours?.start, quietEnd: body.quietHours?.end,
                timeZone: body.quietHours?.timeZone, hasQuietHours: body.quietHours != nil, maxPerHour: body.maxPerHour
            )
            return try GatewayJSON.response(View(try await preferences.replace(accountID: identity.accountID, with: update)))
        }
    }
}
