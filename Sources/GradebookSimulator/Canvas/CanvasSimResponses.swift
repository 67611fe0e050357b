import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// How the Canvas stand-in answers: Canvas's throttling (403 with "Rate Limit Exceeded" and no
/// quota left), its 401 for a token it does not know (`WWW-Authenticate: Bearer`), its error
/// objects, and lists in pages linked by `Link` with opaque page tokens.
enum CanvasSimResponses {
    /// What a route found for the token's student.
    enum Outcome {
        case json([String: any Sendable])
        case page([[String: any Sendable]])
        case notFound
    }

    /// Quota a request leaves, as Canvas reports it.
    static let quotaLeft = "700.0"

    static func answer(_ state: CanvasSimState, _ request: Request, _ route: (CanvasSimData.Student, CanvasSimData) -> Outcome) -> Response {
        let header = request.headers[.authorization] ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : nil
        if state.begin(path: request.uri.path, bearer: token != nil) {
            var fields = HTTPFields()
            fields[HTTPField.Name("X-Rate-Limit-Remaining")!] = "0.0"
            return Response(status: .forbidden, headers: fields, body: .init(byteBuffer: ByteBuffer(string: "403 Forbidden (Rate Limit Exceeded)\n")))
        }
        let data = state.data
        guard let token, let student = state.student(token: token, now: Date()) else {
            var response = json(["errors": [["message": "Invalid access token."]]], status: .unauthorized)
            response.headers[.wwwAuthenticate] = #"Bearer realm="canvas-lms""#
            return response
        }
        var response: Response
        switch route(student, data) {
        case .json(let object):
            response = json(object)
        case .page(let items):
            response = page(items, request, origin: state.nextOrigin, cap: state.pageSizeCap)
        case .notFound:
            response = json(["errors": [["message": "The specified resource does not exist."]]], status: .notFound)
        }
        response.headers[HTTPField.Name("X-Rate-Limit-Remaining")!] = quotaLeft
        return response
    }

    /// One page of `items`: `per_page` as asked up to the cap, the page named by an opaque
    /// token, and `Link` with `current`, `first` and (unless last) `next`.
    static func page(_ items: [[String: any Sendable]], _ request: Request, origin nextOrigin: String?, cap: Int) -> Response {
        let query = request.uri.queryParameters
        let size = min(cap, max(1, query.get("per_page").flatMap(Int.init) ?? 10))
        let offset = query.get("page").flatMap(offset(token:)) ?? 0
        let slice = Array(items.dropFirst(offset).prefix(size))
        let ownOrigin = "http://\(request.head.authority ?? "127.0.0.1")"
        func link(_ at: Int, origin: String) -> String {
            var components = URLComponents()
            components.path = request.uri.path
            let kept = query.filter { $0.key != "page" && $0.key != "per_page" }.map { URLQueryItem(name: String($0.key), value: String($0.value)) }
            components.queryItems = kept + [URLQueryItem(name: "page", value: token(offset: at)), URLQueryItem(name: "per_page", value: String(size))]
            return "\(origin)\(components.string ?? "")"
        }
        var links = [#"<\#(link(offset, origin: ownOrigin))>; rel="current""#, #"<\#(link(0, origin: ownOrigin))>; rel="first""#]
        if offset + size < items.count { links.append(#"<\#(link(offset + size, origin: nextOrigin ?? ownOrigin))>; rel="next""#) }
        var response = json(slice)
        response.headers[HTTPField.Name("Link")!] = links.joined(separator: ",")
        return response
    }

    /// A submission as the student sees it: an unposted score is `null`.
    static func submission(_ stored: CanvasSimData.Submission?, _ assignment: CanvasSimData.Assignment) -> [String: any Sendable] {
        let submission = stored ?? CanvasSimData.Submission(score: nil)
        let shown = submission.posted && !submission.excused ? submission.score : nil
        let null = NSNull()
        return [
            "assignment_id": Int(assignment.id),
            "score": shown.map { $0 as any Sendable } ?? null,
            "grade": shown.map { String($0) as any Sendable } ?? null,
            "graded_at": submission.score != nil ? "2026-10-01T17:00:00Z" : null,
            "posted_at": submission.posted && submission.score != nil ? "2026-10-01T17:00:00Z" : null,
            "workflow_state": submission.score != nil ? "graded" : submission.missing ? "unsubmitted" : "submitted",
            "excused": submission.excused, "missing": submission.missing, "late": submission.late,
        ]
    }

    /// Whether the query asks `include[]=<value>`, its name written plainly or percent-encoded
    /// (`include%5B%5D`), as Rails reads both.
    static func includes(_ request: Request, _ value: String) -> Bool {
        request.uri.queryParameters.contains { parameter in
            String(parameter.key).removingPercentEncoding == "include[]" && String(parameter.value).removingPercentEncoding == value
        }
    }

    static func token(offset: Int) -> String {
        "bookmark:" + Data("offset=\(offset)".utf8).base64EncodedString()
    }

    static func offset(token: String) -> Int? {
        guard token.hasPrefix("bookmark:"), let data = Data(base64Encoded: String(token.dropFirst(9))) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("offset=") else { return nil }
        return Int(text.dropFirst(7)).map { max(0, $0) }
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
