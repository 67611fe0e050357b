import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird

/// The normalised drill-down at `/v1/gradebook/{sourceId}/...`. Credentials: HTTP Basic with
/// the gradebook's own username and password, or a Bearer token of the gateway, which uses the
/// caller's stored account for the source (`?account=` picks one when they store several).
/// `?refresh=1` bypasses the short per-user cache.
struct GradebookV1Routes: Sendable {
    let service: GradebookService
    let authenticator: any Authenticator
    let canvasOAuth: CanvasOAuthService

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let authenticator = self.authenticator, canvasOAuth = self.canvasOAuth
        let group = guarded.group(router, "v1/gradebook", access: .public)
        group.get("sources") { _, _ in
            var items: [GradebookViews.PublicSource] = []
            for source in try await service.sources.sources() {
                items.append(GradebookViews.PublicSource(
                    id: source.id, name: source.name, kind: source.kind.rawValue, oauth: await canvasOAuth.available(for: source)
                ))
            }
            return try GatewayJSON.response(["items": items])
        }
        group.get(":sourceId/sections") { request, context in
            let (source, from, refresh) = try await Self.resolve(request, context, service, authenticator)
            let sections = try await service.sections(sourceID: source, from, refresh: refresh)
            return try GatewayJSON.response(["items": sections.map(GradebookViews.Section.init)])
        }
        group.get(":sourceId/sections/:term/:course/enrollments") { request, context in
            let (source, from, refresh) = try await Self.resolve(request, context, service, authenticator)
            let (term, course) = try Self.section(context)
            let enrollments = try await service.enrollments(sourceID: source, term: term, course: course, from, refresh: refresh)
            let links = GradebookViews.FileLinks(source: try await service.sources.source(id: source), account: Self.account(from))
            return try GatewayJSON.response(["items": enrollments.map { GradebookViews.Enrollment($0, links: links) }])
        }
        group.get(":sourceId/sections/:term/:course/enrollments/:user/assignments") { request, context in
            let (source, from, refresh) = try await Self.resolve(request, context, service, authenticator)
            let (term, course) = try Self.section(context)
            let user = try Self.text(context, "user")
            let assignments = try await service.assignments(sourceID: source, term: term, course: course, user: user, from, refresh: refresh)
            let links = GradebookViews.FileLinks(source: try await service.sources.source(id: source), account: Self.account(from))
            return try GatewayJSON.response(["items": assignments.map { GradebookViews.Assignment($0, links: links) }])
        }
        group.get(":sourceId/sections/:term/:course/assignments/:assignmentId/stats") { request, context in
            let (source, from, refresh) = try await Self.resolve(request, context, service, authenticator)
            let (term, course) = try Self.section(context)
            guard let raw = context.parameters.get("assignmentId"), let assignment = Int64(raw) else {
                throw GradebookError.invalid(field: "assignmentId", message: "The assignment id must be an integer.")
            }
            let stats = try await service.assignmentStats(sourceID: source, term: term, course: course, assignment: assignment, from, refresh: refresh)
            return try GatewayJSON.response(GradebookViews.Stats(stats))
        }
        group.get(":sourceId/file_download") { request, context in
            let (source, from, _) = try await Self.resolve(request, context, service, authenticator)
            let query: FileDownloadQuery
            do throws(FileDownloadQuery.Refusal) {
                query = try GradebookFileResponses.query(request, excluding: ["account", "refresh"])
            } catch {
                throw GradebookError.invalid(field: "query", message: "Not a file_download query: \(error.reason).")
            }
            return try Self.fileResponse(try await service.file(sourceID: source, query: query, from), query: query, source: try await service.sources.source(id: source))
        }
    }

    /// The stored account a Bearer caller picked with `?account=`, for file links.
    static func account(_ from: GradebookService.CredentialSource) -> Int64? {
        if case .stored(_, let chosen) = from { return chosen }
        return nil
    }

    /// A file, or the problem for the upstream's refusal (403 for the protocol's "Incorrect
    /// permission" string, 404 `gradebook-file-not-found`, 401 as for records).
    static func fileResponse(_ reply: UpstreamReply, query: FileDownloadQuery, source: GradebookSource) throws -> Response {
        if GradebookFileResponses.isPermissionRefusal(reply) { throw GradebookError.permissionDenied(sourceID: source.id, name: source.name) }
        switch reply.status {
        case 200: return GradebookFileResponses.file(reply, query: query)
        case 404, 410: throw GradebookError.fileNotFound(sourceID: source.id, name: source.name)
        default: throw CalPolyAdapter.failure(reply, source: source)
        }
    }

    /// The source id, where the credentials come from, and whether to bypass the cache.
    static func resolve(
        _ request: Request, _ context: GatewayContext, _ service: GradebookService, _ authenticator: any Authenticator
    ) async throws -> (Int64, GradebookService.CredentialSource, Bool) {
        guard let raw = context.parameters.get("sourceId"), let source = Int64(raw), source > 0 else { throw GradebookError.sourceNotFound(String((context.parameters.get("sourceId") ?? "").prefix(40))) }
        let refresh: Bool
        do {
            refresh = try queryFlag(request.uri.queryParameters.get("refresh"), name: "refresh")
        } catch {
            throw GradebookError.invalid(field: "refresh", message: "refresh is true or false (1 or 0).")
        }
        let header = request.headers[.authorization] ?? ""
        if header.lowercased().hasPrefix("basic ") {
            guard let credentials = BasicAuthorization.parse(header) else { throw GradebookError.credentialsRequired }
            return (source, .request(credentials.presented(by: .anonymous(clientAddress: context.clientAddress))), refresh)
        }
        guard let identity = try await authenticator.authenticate(request, context: context) else { throw GradebookError.credentialsRequired }
        var chosen: Int64?
        if let account = request.uri.queryParameters.get("account") {
            guard let id = Int64(account) else { throw GradebookError.invalid(field: "account", message: "The account must be an integer id.") }
            chosen = id
        }
        return (source, .stored(accountID: identity.accountID, gradebookAccount: chosen), refresh)
    }

    static func section(_ context: GatewayContext) throws -> (Int64, String) {
        guard let raw = context.parameters.get("term"), let term = Int64(raw) else {
            throw GradebookError.invalid(field: "term", message: "The term must be the gradebook's term number (2152).")
        }
        return (term, try text(context, "course"))
    }

    /// A path value as the student wrote it: percent-decoded first (`CS%20101` is `CS 101`, and
    /// 34 × `%61` is 34 characters), then 1 to 100 characters with no control characters.
    static func text(_ context: GatewayContext, _ name: String) throws -> String {
        guard let raw = context.parameters.get(name), let value = raw.removingPercentEncoding else {
            throw GradebookError.invalid(field: name, message: "\(name) is not validly percent-encoded.")
        }
        guard !value.isEmpty, value.count <= 100, value.utf8.count <= 400, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw GradebookError.invalid(field: name, message: "\(name) must be 1 to 100 characters, none of them control characters.")
        }
        return value
    }
}
