import Catalog
import Contracts
import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// Share links of the signed-in student's saved schedules, at
/// `/v1/me/schedules/{id}/share-links`, and what anyone holding one reads, at
/// `/v1/shared/schedules/{token}` (the schedule) and `/v1/shared/schedules/{token}/calendar.ics`.
/// The token is in the path, so the access log redacts everything after
/// ``SchedulingRoutes/sharedPathPrefix``.
struct ShareLinkRoutes: Sendable {
    let service: ShareLinkService
    let catalog: CatalogService
    let friends: (any FriendCircle)?

    struct CreateBody: Decodable {
        let expiresIn: String
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service, catalog = self.catalog, friends = self.friends
        let mine = guarded.group(router, "v1/me/schedules", access: .authenticated)
        mine.post(":scheduleId/share-links") { request, context in
            let identity = try context.requireIdentity()
            let id = try SavedScheduleRoutes.scheduleID(context)
            let body = try await GatewayJSON.decode(CreateBody.self, from: request, context: context)
            guard let expiry = ShareLinkExpiry(rawValue: body.expiresIn) else {
                throw SchedulingError.invalid(field: "expiresIn", message: "expiresIn is one of 1h, 1d, 1w or never.")
            }
            let made = try await service.create(scheduleID: id, accountID: identity.accountID, expiry: expiry)
            let path = "/v1/shared/schedules/\(made.token)"
            let url = CalendarRoutes.host(of: request).map { "\(CalendarRoutes.scheme(of: request, context: context))://\($0)\(path)" }
            return try GatewayJSON.response(
                NewLinkView(id: made.link.id, path: path, url: url, createdAt: made.link.createdAt, expiresAt: made.link.expiresAt),
                status: .created, headers: [.cacheControl: "no-store"]
            )
        }
        mine.get(":scheduleId/share-links") { _, context in
            let identity = try context.requireIdentity()
            let links = try await service.links(scheduleID: try SavedScheduleRoutes.scheduleID(context), accountID: identity.accountID)
            return try GatewayJSON.response(["items": links.map(LinkView.init)])
        }
        mine.delete(":scheduleId/share-links/:linkId") { _, context in
            let identity = try context.requireIdentity()
            let scheduleID = try SavedScheduleRoutes.scheduleID(context)
            guard let raw = context.parameters.get("linkId"), let linkID = Int64(raw), linkID > 0 else { throw SchedulingError.shareLinkNotFound }
            try await service.revoke(linkID: linkID, scheduleID: scheduleID, accountID: identity.accountID)
            return Response(status: .noContent)
        }

        let shared = guarded.group(router, "v1/shared/schedules", access: .public)
        shared.get(":token") { _, context in
            let token = context.parameters.get("token") ?? ""
            let saved = try await service.shared(token: token, clientAddress: context.clientAddress)
            let owner = try await friends?.displayNames(of: [saved.accountID])[saved.accountID]
            return try GatewayJSON.response(
                SharedView(ScheduleViews.Detail(saved, snapshot: try await catalog.snapshot()), ownerDisplayName: owner),
                headers: [.cacheControl: "private, no-store"]
            )
        }
        shared.get(":token/calendar.ics") { request, context in
            let token = context.parameters.get("token") ?? ""
            let calendar = try await service.sharedCalendar(token: token, clientAddress: context.clientAddress)
            return CalendarRoutes.response(calendar, request: request, attachment: true)
        }
    }

    /// A new link: its address, shown only now.
    struct NewLinkView: Encodable {
        let id: Int64
        /// `/v1/shared/schedules/{token}`: the API address of the shared schedule.
        let path: String
        /// The same address, absolute when the Host header allows.
        let url: String?
        let createdAt: Date
        let expiresAt: Date?
    }

    /// A live link, without its token.
    struct LinkView: Encodable {
        let id: Int64
        let createdAt: Date
        let expiresAt: Date?

        init(_ link: ShareLink) {
            id = link.id
            createdAt = link.createdAt
            expiresAt = link.expiresAt
        }
    }

    /// A shared schedule: its name, term and sections (with meetings), never its owner's
    /// account or the schedule's id.
    struct SharedView: Encodable {
        let name: String
        let term: String
        let sections: [ScheduleViews.Section]
        /// The name the owner shows other students (never their username); absent when they have none.
        let ownerDisplayName: String?

        init(_ detail: ScheduleViews.Detail, ownerDisplayName: String?) {
            name = detail.summary.name
            term = detail.summary.term
            sections = detail.sections
            self.ownerDisplayName = ownerDisplayName
        }
    }
}
