
import Foundation
import GatewayHTTP
import HTTPTypes
import Hummingbird
import NIOCore

/// Conditional requests (RFC 9110 §13) on the v1 API's JSON.
///
/// - Every `200` JSON answer carries a strong `ETag` (``GatewayJSON/response(_:status:headers:)``
///   hashes the bytes it writes). A `GET` or `HEAD` whose `If-None-Match` names it answers
///   `304 Not Modified`, with the `ETag` and no body.
/// - `PUT` and `PATCH` on a student's own saved schedules and push preferences honour
///   `If-Match` in their routes (``IfMatch``).
///
/// Only `/v1/` answers are revalidated here: the compatibility protocols and the calendar feeds
/// (which tag and revalidate their own) pass through.
struct ConditionalRequests: RouterMiddleware {
    typealias Context = GatewayContext

    func handle(_ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response) async throws -> Response {
        // The compatibility protocols and the calendar feeds keep their own answers: no 304 here.
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        switch request.method {
        case .get, .head:
            let response = try await next(request, context)
            guard response.status == .ok, let tag = response.headers[.eTag], let wanted = request.headers[.ifNoneMatch],
                  IfMatch.matches(wanted, tag, weak: true) else { return response }
            var headers = HTTPFields()
            for name in [HTTPField.Name.eTag, .cacheControl, .vary, .contentLocation, .expires] {
                for value in response.headers[values: name] { headers.append(HTTPField(name: name, value: value)) }
            }
            return Response(status: .notModified, headers: headers)
        default:
            return try await next(request, context)
        }
    }
}
