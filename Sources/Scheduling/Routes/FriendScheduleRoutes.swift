import Catalog
import Contracts
import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// What the signed-in student's friends let them see, at `/v1/me/friends/schedules`.
struct FriendScheduleRoutes: Sendable {
    let service: FriendSchedulesService

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        guarded.group(router, "v1/me/friends", access: .authenticated).get("schedules") { request, context in
            let identity = try context.requireIdentity()
            let term = try request.uri.queryParameters["term"].map(String.init).flatMap { raw -> String? in
                let term = raw.trimmingCharacters(in: .whitespaces)
                guard term.count <= 40 else { throw SchedulingError.invalid(field: "term", message: "A term is at most 40 characters.") }
                return term.isEmpty ? nil : term
            }
            let plans = try await service.plans(of: identity.accountID, term: term)
            let snapshot = try await service.catalog.snapshot()
            return try GatewayJSON.response(
                ["items": plans.map { FriendPlansView($0, snapshot: snapshot) }], headers: [.cacheControl: "private, no-store"]
            )
        }
    }

    /// One friend and what they share. A friend's schedule shows its name, term and classes,
    /// never its id: the id is the owner's to use.
    struct FriendPlansView: Encodable {
        let accountId: Int64
        let displayName: String
        let username: String
        let schedules: [Plan]
        /// Absent when the friend does not share their enrollments.
        let enrolled: [CatalogViews.Class]?

        struct Plan: Encodable {
            let name: String
            let term: String
            let classes: [CatalogViews.Class]
        }

        init(_ plans: FriendSchedulesService.FriendPlans, snapshot: CatalogCache.Snapshot) {
            accountId = plans.friend.accountID
            displayName = plans.friend.displayName
            username = plans.friend.username
            schedules = plans.schedules.map { schedule in
                Plan(name: schedule.name, term: schedule.term, classes: schedule.classIDs.compactMap { snapshot.listing(id: $0).map { CatalogViews.Class($0) } })
            }
            enrolled = plans.enrolledClassIDs.map { ids in ids.compactMap { snapshot.listing(id: $0).map { CatalogViews.Class($0) } } }
        }
    }
}
