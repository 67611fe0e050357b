import Foundation
import GatewayCore
import GatewayHTTP
import Hummingbird
import NIOCore

/// The Cal Poly protocol at `/gradebook/{sourceId}/`: `grades.json?record=...` and `auth.txt`
/// pass the caller's Basic credentials upstream and answer what the upstream answered (status
/// and bytes), so the lab clients work with `/gradebook/{id}/grades.json` as their base URL.
/// File links in records (`picture`, `feedback`, `student_work` urls naming the source's
/// `file_download`) are rewritten to `/gradebook/{id}/file_download?...`, which fetches the file
/// from the source with the same credentials. Failures answer the status the client
/// understands, with a JSON string body.
struct GradebookCompatRoutes: Sendable {
    let service: GradebookService

    static let prefix = "/gradebook/"

    func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "gradebook", access: .public)
        group.get(":sourceId/grades.json") { request, context in
            let source = try Self.sourceID(context)
            let credentials = try Self.credentials(request, context)
            var query: [(String, String)] = []
            var refresh = false
            for (name, value) in request.uri.queryParameters {
                if name == "refresh" { refresh = ["1", "true"].contains(String(value)); continue }
                query.append((String(name), String(value)))
            }
            guard query.count <= 16, query.allSatisfy({ $0.0.utf8.count <= 32 && $0.1.utf8.count <= 256 }) else {
                throw CompatError(status: .badRequest, message: "Query too large")
            }
            let reply = try await service.passThrough(
                sourceID: source, query: query, credentials: credentials, refresh: refresh, fileLinks: Self.fileLinks(source)
            )
            return Self.response(reply, as: Self.recordsType)
        }
        group.get(":sourceId/file_download") { request, context in
            let source = try Self.sourceID(context)
            let credentials = try Self.credentials(request, context)
            let query: FileDownloadQuery
            do throws(FileDownloadQuery.Refusal) { query = try GradebookFileResponses.query(request) } catch { throw CompatError(status: .badRequest, message: "Bad file request: \(error.reason)") }
            let reply = try await service.file(sourceID: source, query: query, .request(credentials))
            return Self.fileResponse(reply, query: query)
        }
        group.get(":sourceId/auth.txt") { request, context in
            let reply = try await service.probe(sourceID: try Self.sourceID(context), credentials: try Self.credentials(request, context))
            // Only the probe's 200 is plain text (`access\n`, or a login page the clients read as
            // a failure); a refusal passes as the protocol's other answers do, as JSON.
            return Self.response(reply, as: reply.status == 200 ? Self.probeType : Self.recordsType)
        }
    }

    static func sourceID(_ context: GatewayContext) throws -> Int64 {
        guard let raw = context.parameters.get("sourceId"), let id = Int64(raw), id > 0 else {
            throw CompatError(status: .notFound, message: "Unknown gradebook")
        }
        return id
    }

    /// The Basic credentials of the request, presented by an anonymous caller (the protocol
    /// has no sign-in of the gateway's own), or a 401 asking for them.
    static func credentials(_ request: Request, _ context: GatewayContext) throws -> GradebookCredentials {
        guard let credentials = BasicAuthorization.parse(request.headers[.authorization]) else {
            throw CompatError(status: .unauthorized, message: "Authorization required")
        }
        return credentials.presented(by: .anonymous(clientAddress: context.clientAddress))
    }

    /// Where a source's files are served to the protocol's clients.
    static func fileLinks(_ source: Int64) -> String { "/gradebook/\(source)/file_download" }

    /// A file as the lab clients get it: the file (``GradebookFileResponses``), the upstream's
    /// permission refusal as it sent it (a JSON string, as for records), or the upstream's status
    /// with a JSON string of the gateway's own (an upstream error page is never passed on).
    static func fileResponse(_ reply: UpstreamReply, query: FileDownloadQuery) -> Response {
        var response: Response
        if reply.status == 200, !GradebookFileResponses.isPermissionRefusal(reply) {
            return GradebookFileResponses.file(reply, query: query)
        } else if reply.status == 200 {
            response = Self.response(reply, as: Self.recordsType)
        } else {
            let text = switch reply.status {
            case 401: "Authorization required"
            case 403: "Incorrect permission: this file is not yours to see"
            case 404: "No such file"
            case 400..<500: "The gradebook refused the request (\(reply.status))"
            default: "The upstream gradebook failed (\(reply.status))"
            }
            response = message((400..<500).contains(reply.status) ? HTTPResponse.Status(code: reply.status) : .badGateway, text)
            if reply.status == 401 { response.headers[.wwwAuthenticate] = #"Basic realm="gradebook""# }
        }
        for field in GradebookFileResponses.securityHeaders { response.headers[field.name] = field.value }
        return response
    }

    /// What `grades.json` answers are, whatever the upstream declared: the gateway never serves
    /// an upstream's `text/html` (or any other type a browser would render) from its own origin.
    static let recordsType = "application/json"
    /// What `auth.txt`'s 200 answers are: the probe's `access\n` is plain text.
    static let probeType = "text/plain"

    /// The upstream's status and bytes, declared as `contentType` (never the upstream's type).
    static func response(_ reply: UpstreamReply, as contentType: String) -> Response {
        // An upstream's own 5xx is a bad gateway here: this route never answers 500.
        if reply.status >= 500 {
            return message(.badGateway, "The upstream gradebook failed (\(reply.status))")
        }
        var headers: HTTPFields = [.contentType: contentType]
        headers[.cacheControl] = "private, no-store"
        if reply.status == 401 { headers[.wwwAuthenticate] = #"Basic realm="gradebook""# }
        let status = HTTPResponse.Status(code: reply.status)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    /// How every failure under `/gradebook/` answers: the status with a JSON string body.
    static let errorRenderer = ErrorRenderer(pathPrefix: prefix) { error, _ in
        func string(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
            message(status, text, headers: headers)
        }
        switch error {
        case let compat as CompatError:
            return string(compat.status, compat.message, headers: compat.status == .unauthorized ? [.wwwAuthenticate: #"Basic realm="gradebook""#] : [:])
        case let gradebook as GradebookError:
            let problem = gradebook.problem
            return string(problem.status, problem.detail ?? problem.title, headers: problem.headers)
        case let problem as Problem:
            return string(problem.status, problem.detail ?? problem.title, headers: problem.headers)
        case let http as HTTPError:
            return string(http.status, http.body ?? http.status.reasonPhrase)
        default:
            return string(.badGateway, "The gradebook could not be reached")
        }
    }
}

extension GradebookCompatRoutes {
    /// A status with a JSON string body, as the protocol's clients read failures.
    static func message(_ status: HTTPResponse.Status, _ text: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "application/json"
        let body = (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A compatibility-route refusal: a status and a short message.
struct CompatError: Error {
    let status: HTTPResponse.Status
    let message: String
}

/// Reads `Authorization: Basic ...`.
enum BasicAuthorization {
    static func parse(_ header: String?) -> GradebookCredentials? {
        guard let header, header.count <= 4096 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        let username = String(text[..<colon]), password = String(text[text.index(after: colon)...])
        guard !username.isEmpty else { return nil }
        return GradebookCredentials(username: username, password: password)
    }
}
