import GatewayCore
import Catalog
import Foundation
import GatewayHTTP
import Hummingbird

/// The signed-in student's saved schedules at `/v1/me/schedules`.
struct SavedScheduleRoutes: Sendable {
    let service: SavedScheduleService
    let shareLinks: ShareLinkService

    /// A new schedule's classes, or a share link's token to copy the schedule it shows.
    struct CreateBody: Decodable {
        let name: String?
        let term: String?
        let classIds: [Int64]?
        let fromShared: String?
    }

    struct UpdateBody: Decodable {
        let name: String?
        let classIds: [Int64]?
        let visibility: String?
    }

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/me/schedules", access: .authenticated)
        group.get { _, context in
            let identity = try context.requireIdentity()
            let schedules = try await service.schedules(accountID: identity.accountID)
            return try GatewayJSON.response(["items": schedules.map { ScheduleViews.Summary($0) }])
        }
        group.post { request, context in
            let identity = try context.requireIdentity()
            let body = try await GatewayJSON.decode(CreateBody.self, from: request, context: context)
            let saved: SavedSchedule
            if let token = body.fromShared {
                saved = try await copy(token: token, body: body, accountID: identity.accountID, clientAddress: context.clientAddress)
            } else {
                guard let name = body.name else { throw SchedulingError.invalid(field: "name", message: "A schedule needs a name.") }
                guard let classIDs = body.classIds else { throw SchedulingError.invalid(field: "classIds", message: "A schedule needs its classes.") }
                let term = (body.term ?? "").trimmingCharacters(in: .whitespaces)
                guard !term.isEmpty, term.count <= 40 else { throw SchedulingError.invalid(field: "term", message: "A term is 1 to 40 characters.") }
                saved = try await service.save(accountID: identity.accountID, name: name, term: term, classIDs: classIDs)
            }
            return try GatewayJSON.response(
                ScheduleViews.Detail(saved, snapshot: service.catalog.cachedSnapshot()), status: .created,
                headers: [.location: "/v1/me/schedules/\(saved.id)"]
            )
        }
        group.get(":scheduleId") { _, context in
            let identity = try context.requireIdentity()
            let saved = try await service.schedule(id: try Self.scheduleID(context), accountID: identity.accountID)
            return try GatewayJSON.response(ScheduleViews.Detail(saved, snapshot: try await service.catalog.snapshot()))
        }
        group.patch(":scheduleId") { request, context in
            let identity = try context.requireIdentity()
            let id = try Self.scheduleID(context)
            let body = try await GatewayJSON.decode(UpdateBody.self, from: request, context: context)
            if request.headers[.ifMatch] != nil {
                let current = try await service.schedule(id: id, accountID: identity.accountID)
                try IfMatch.check(request, current: ScheduleViews.Detail(current, snapshot: try await service.catalog.snapshot()))
            }
            let visibility = try body.visibility.map { raw in
                guard let visibility = ScheduleVisibility(rawValue: raw) else {
                    throw SchedulingError.invalid(field: "visibility", message: "visibility is private or friends.")
                }
                return visibility
            }
            let saved = try await service.update(
                id: id, accountID: identity.accountID, name: body.name, classIDs: body.classIds, visibility: visibility
            )
            return try GatewayJSON.response(ScheduleViews.Detail(saved, snapshot: service.catalog.cachedSnapshot()))
        }
        group.delete(":scheduleId") { _, context in
            let identity = try context.requireIdentity()
            try await service.delete(id: try Self.scheduleID(context), accountID: identity.accountID)
            return Response(status: .noContent)
        }
    }

    /// Copies the schedule a live share link shows into the caller's own: its term, and its
    /// classes that are still in the catalog.
    func copy(token: String, body: CreateBody, accountID: Int64, clientAddress: String?) async throws -> SavedSchedule {
        guard body.classIds == nil else { throw SchedulingError.invalid(field: "classIds", message: "A copy takes the shared schedule's classes.") }
        let shared = try await shareLinks.shared(token: token, clientAddress: clientAddress)
        if let term = body.term, term.trimmingCharacters(in: .whitespaces) != shared.term {
            throw SchedulingError.invalid(field: "term", message: "The shared schedule is of term \(shared.term).")
        }
        let snapshot = try await service.catalog.snapshot()
        let classIDs = shared.classIDs.filter { snapshot.listing(id: $0) != nil }
        guard !classIDs.isEmpty else { throw SchedulingError.invalid(field: "fromShared", message: "None of the shared schedule's classes is in the catalog any more.") }
        return try await service.save(accountID: accountID, name: body.name ?? shared.name, term: shared.term, classIDs: classIDs)
    }

    /// The schedule id in the path; anything but a positive integer is simply not found.
    static func scheduleID(_ context: GatewayContext) throws -> Int64 {
        guard let raw = context.parameters.get("scheduleId"), let id = Int64(raw), id > 0 else { throw SchedulingError.scheduleNotFound }
        return id
    }
}

/// The JSON shapes of saved schedules.
enum ScheduleViews {
    struct Summary: Encodable {
        let id: Int64
        let name: String
        let term: String
        let classIds: [Int64]
        let createdAt: Date
        let updatedAt: Date
        let visibility: ScheduleVisibility

        init(_ schedule: SavedSchedule) {
            id = schedule.id
            name = schedule.name
            term = schedule.term
            classIds = schedule.classIDs
            createdAt = schedule.createdAt
            updatedAt = schedule.updatedAt
            visibility = schedule.visibility
        }
    }

    /// A schedule with each class as it stands now: seats open, full, or with a waitlist. Its
    /// JSON is the summary's fields and `sections`.
    struct Detail: Encodable {
        let summary: Summary
        let sections: [Section]

        init(_ schedule: SavedSchedule, snapshot: CatalogCache.Snapshot) {
            summary = Summary(schedule)
            sections = schedule.classIDs.map { id in Section(classId: id, listing: snapshot.listing(id: id)) }
        }

        private enum CodingKeys: String, CodingKey { case sections }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sections, forKey: .sections)
        }
    }

    struct Section: Encodable {
        let classId: Int64
        /// `open`, `full`, `waitlist` (full with students waiting), or `removed` when the class
        /// left the catalog after the schedule was saved.
        let status: String
        let seats: Seats?
        let `class`: CatalogViews.Class?

        init(classId: Int64, listing: ClassListing?) {
            self.classId = classId
            self.class = listing.map { CatalogViews.Class($0) }
            guard let listing else {
                status = "removed"
                seats = nil
                return
            }
            let count = listing.seats
            status = count.openSeats > 0 ? "open" : (count.waitlist > 0 ? "waitlist" : "full")
            seats = Seats(capacity: count.seats, enrolled: count.enrolled, open: count.openSeats, waitlist: count.waitlist)
        }
    }

    struct Seats: Encodable {
        let capacity: Int
        let enrolled: Int
        let open: Int
        let waitlist: Int
    }
}
