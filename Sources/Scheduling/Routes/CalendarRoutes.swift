import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// Calendar downloads and the subscription feed:
/// - `GET /v1/me/schedules/{id}/calendar.ics` and `GET /v1/me/registration/calendar.ics`;
/// - `/v1/me/calendar-feed`: create (the secret URL, shown once), read and revoke the feed;
/// - `/v1/me/schedules/{id}/calendar-feed`: the same for one saved schedule;
/// - `GET /calendar/{token}.ics`: a feed itself, public by its secret, with ETag and
///   Last-Modified (304 when they match).
struct CalendarRoutes: Sendable {
    let service: CalendarService

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let schedules = guarded.group(router, "v1/me/schedules", access: .authenticated)
        schedules.get(":scheduleId/calendar.ics") { request, context in
            let identity = try context.requireIdentity()
            let calendar = try await service.scheduleCalendar(id: try SavedScheduleRoutes.scheduleID(context), accountID: identity.accountID)
            return Self.response(calendar, request: request, attachment: true)
        }
        schedules.get(":scheduleId/calendar-feed") { _, context in
            let identity = try context.requireIdentity()
            let id = try SavedScheduleRoutes.scheduleID(context)
            let createdAt = try await service.scheduleFeedCreatedAt(scheduleID: id, accountID: identity.accountID)
            return try GatewayJSON.response(FeedStatus(active: true, createdAt: createdAt))
        }
        schedules.post(":scheduleId/calendar-feed") { request, context in
            let identity = try context.requireIdentity()
            let id = try SavedScheduleRoutes.scheduleID(context)
            let created = try await service.createScheduleFeed(scheduleID: id, accountID: identity.accountID)
            return try Self.created(created, request: request, context: context)
        }
        schedules.delete(":scheduleId/calendar-feed") { _, context in
            let identity = try context.requireIdentity()
            try await service.revokeScheduleFeed(scheduleID: try SavedScheduleRoutes.scheduleID(context), accountID: identity.accountID)
            return Response(status: .noContent)
        }
        guarded.group(router, "v1/me/registration", access: .authenticated).get("calendar.ics") { request, context in
            let identity = try context.requireIdentity()
            let calendar = try await service.registrationCalendar(accountID: identity.accountID)
            return Self.response(calendar, request: request, attachment: true)
        }
        let feed = guarded.group(router, "v1/me/calendar-feed", access: .authenticated)
        feed.get { _, context in
            let identity = try context.requireIdentity()
            guard let createdAt = try await service.feedCreatedAt(accountID: identity.accountID) else { throw SchedulingError.feedNotFound }
            return try GatewayJSON.response(FeedStatus(active: true, createdAt: createdAt))
        }
        feed.post { request, context in
            let identity = try context.requireIdentity()
            let created = try await service.createFeed(accountID: identity.accountID)
            return try Self.created(created, request: request, context: context)
        }
        feed.delete { _, context in
            let identity = try context.requireIdentity()
            try await service.revokeFeed(accountID: identity.accountID)
            return Response(status: .noContent)
        }
        guarded.group(router, "calendar", access: .public).get(":file") { request, context in
            guard let file = context.parameters.get("file"), file.hasSuffix(".ics") else { throw SchedulingError.feedNotFound }
            let calendar = try await service.feedCalendar(token: String(file.dropLast(4)))
            return Self.response(calendar, request: request, attachment: false)
        }
    }

    struct FeedStatus: Encodable {
        let active: Bool
        let createdAt: Date
    }

    struct NewFeedView: Encodable {
        /// `/calendar/{token}.ics`: keep it secret; anyone with it sees the calendar.
        let path: String
        let url: String?
        let webcalUrl: String?
        let createdAt: Date
    }

    /// A new feed's secret address (201, never cached), absolute when the Host header allows.
    static func created(_ created: CalendarService.NewFeed, request: Request, context: GatewayContext) throws -> Response {
        let path = "/calendar/\(created.token).ics"
        let host = Self.host(of: request)
        return try GatewayJSON.response(
            NewFeedView(
                path: path, url: host.map { "\(Self.scheme(of: request, context: context))://\($0)\(path)" },
                webcalUrl: host.map { "webcal://\($0)\(path)" }, createdAt: created.createdAt
            ),
            status: .created, headers: [.cacheControl: "no-store"]
        )
    }

    /// The calendar with its validators, or 304 when the client already has this revision.
    static func response(_ calendar: CalendarService.ExportedCalendar, request: Request, attachment: Bool) -> Response {
        var headers: HTTPFields = [
            .eTag: calendar.etag,
            .lastModified: httpDate(calendar.lastModified),
            .cacheControl: "private, no-cache",
        ]
        if isFresh(calendar, request: request) { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = CalendarDocument.contentType
        headers[.contentDisposition] = attachment
            ? "attachment; filename=\"\(calendar.filename)\""
            : "inline; filename=\"\(calendar.filename)\""
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: calendar.body)))
    }

    /// Whether the client's copy is current: If-None-Match, or else If-Modified-Since (RFC 9110).
    static func isFresh(_ calendar: CalendarService.ExportedCalendar, request: Request) -> Bool {
        if let header = request.headers[.ifNoneMatch] {
            let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains { tag in tag == calendar.etag || tag == "W/" + calendar.etag || tag == "*" }
        }
        guard let header = request.headers[.ifModifiedSince], let since = parseHTTPDate(header) else { return false }
        return calendar.lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
    }

    /// The Host header, when it is a plausible host[:port].
    static func host(of request: Request) -> String? {
        guard let host = request.head.authority, !host.isEmpty, host.count <= 255,
              host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }) else { return nil }
        return host
    }

    /// `https` when the request came over TLS, or through a trusted proxy (one whose forwarded
    /// client address the gateway accepted) that says so; otherwise `http`.
    static func scheme(of request: Request, context: GatewayContext) -> String {
        if request.head.scheme == "https" { return "https" }
        let forwarded = context.clientAddress != nil && context.clientAddress != context.peerAddress
        if forwarded, let proto = request.headers[HTTPField.Name("X-Forwarded-Proto")!], proto.lowercased() == "https" { return "https" }
        return "http"
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
