public import Contracts
import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird

/// Public catalog browsing: subjects with colleges and counts, filtered class lists with
/// cursor pagination, and class details with meetings and open seats.
public struct V1CatalogRoutes: Sendable {
    let service: CatalogService
    /// Which classes a signed-in student's friends take (nil: no Friends module).
    let friends: (any FriendsInClasses)?

    public init(service: CatalogService, friends: (any FriendsInClasses)? = nil) {
        self.service = service
        self.friends = friends
    }

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "v1/registration", access: .public)
        group.get("subjects") { _, _ in
            try GatewayJSON.response(["items": try await service.subjects().map(CatalogViews.Subject.init)])
        }
        let friends = self.friends, authenticator = guarded.authenticator
        group.get("classes") { request, context in
            let query = try await Self.query(from: request, service: service)
            let limit = try pageLimit(request.uri.queryParameters["limit"].map(String.init))
            let cursor = try request.uri.queryParameters["cursor"].map { try PageCursor(token: String($0)) }
            let afterID = cursor.flatMap { $0.after.first.flatMap(Int64.init) }
            let (items, more) = try await service.classes(matching: query, afterID: afterID, limit: limit)
            let next = more ? items.last.map { PageCursor(after: [String($0.info.id)]).token } : nil
            var views = items.map { CatalogViews.Class($0) }
            let student = try await Self.friendsShown(in: &views, request: request, context: context, friends: friends, authenticator: authenticator)
            return try Self.personal(GatewayJSON.response(page: Page(items: views, nextCursor: next), for: request), if: student)
        }
        group.get("classes/:classId") { request, context in
            let id = try Self.classID(context)
            guard let listing = try await service.classListing(id: id) else { throw CatalogViews.classNotFound(id) }
            var views = [CatalogViews.Class(listing, detail: true)]
            let student = try await Self.friendsShown(in: &views, request: request, context: context, friends: friends, authenticator: authenticator)
            return try Self.personal(GatewayJSON.response(views[0]), if: student)
        }
    }

    /// For a caller who signed in (a bearer token that authenticates), the friends in each of
    /// `views`; true when the answer is that student's own. Anyone else, and a token that
    /// does not authenticate, sees the public list.
    static func friendsShown(
        in views: inout [CatalogViews.Class], request: Request, context: GatewayContext, friends: (any FriendsInClasses)?,
        authenticator: any Authenticator
    ) async throws -> Bool {
        guard let friends, request.headers[.authorization] != nil,
              let identity = try? await authenticator.authenticate(request, context: context)
        else { return false }
        let taken = try await friends.friendsInClasses(views.map(\.id), for: identity.accountID)
        for index in views.indices {
            if let inClass = taken[views[index].id] { views[index].show(inClass) }
        }
        return true
    }

    /// A student's own answer is not for shared caches.
    static func personal(_ response: Response, if student: Bool) -> Response {
        guard student else { return response }
        var response = response
        response.headers[.cacheControl] = "private, no-store"
        response.headers[.vary] = "Authorization"
        return response
    }

    /// The most subjects one class query may name.
    public static let maximumSubjects = 200

    /// The class id path parameter; one no class can have (not a number, or past 64 bits) is
    /// the same 404 as an id no class has.
    public static func classID(_ context: GatewayContext) throws -> Int64 {
        let raw = context.parameters.get("classId") ?? ""
        guard let id = Int64(raw) else { throw CatalogViews.classNotFound(String(raw.prefix(40))) }
        return id
    }

    /// Reads the filter from the query string; each bad value is a 400 problem naming it.
    public static func query(from request: Request, service: CatalogService) async throws -> ClassQuery {
        let parameters = request.uri.queryParameters
        func value(_ name: String) -> String? {
            parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        }
        var query = ClassQuery()
        let subjectParameters = parameters[values: "subject"].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        // Distinct values only, and a bounded list: no request makes the filter do more work
        // than the catalog has subjects.
        var seenSubjects = Set<String>()
        let subjectValues = subjectParameters.filter { seenSubjects.insert($0.uppercased()).inserted }
        guard subjectValues.count <= Self.maximumSubjects else {
            throw Problem.badRequest("At most \(Self.maximumSubjects) subjects per query.", invalidFields: ["subject"])
        }
        if !subjectValues.isEmpty {
            let index = try await service.snapshot().index
            query.subjectIDs = try subjectValues.map { value in
                if let id = Int64(value) { return id }
                guard let id = index.subjectID(code: value) else {
                    throw Problem.badRequest("Unknown subject '\(value)': use a subject id or code.", invalidFields: ["subject"])
                }
                return id
            }
        }
        if let raw = value("level") {
            guard let level = CourseLevel.filter(parsing: raw) else {
                throw Problem.badRequest("level must be lower, upper or graduate.", invalidFields: ["level"])
            }
            query.level = level
        }
        func time(_ name: String) throws -> TimeOfDay? {
            guard let raw = value(name) else { return nil }
            guard let time = TimeOfDay(parsing: raw) else {
                throw Problem.badRequest("\(name) must be a time such as 17:30 or 1730.", invalidFields: [name])
            }
            return time
        }
        query.startsAtOrAfter = try time("startsAtOrAfter")
        query.endsAtOrBefore = try time("endsAtOrBefore")
        if let raw = value("days") {
            guard let days = Weekdays(parsing: raw), !days.isEmpty else {
                throw Problem.badRequest("days must be days of the week such as MWF, TTH or mon,wed.", invalidFields: ["days"])
            }
            query.days = days
        }
        if let raw = value("open") {
            guard let open = ["true": true, "1": true, "false": false, "0": false][raw.lowercased()] else {
                throw Problem.badRequest("open must be true or false.", invalidFields: ["open"])
            }
            query.openSeatsOnly = open
        }
        if let instructor = value("instructor") {
            guard instructor.count <= 100 else {
                throw Problem.badRequest("instructor must be at most 100 characters.", invalidFields: ["instructor"])
            }
            query.instructor = instructor
        }
        query.text = try value("q").map { try SearchText.normalized($0) }
        query.term = value("term")
        return query
    }
}
