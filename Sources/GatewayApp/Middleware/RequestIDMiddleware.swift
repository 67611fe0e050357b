import Logging
import GatewayHTTP
import GatewayCore
import Hummingbird

/// Gives every request an id: the caller's `X-Request-Id` when it is short and plain, otherwise
/// a generated one. The id is attached to every log line and echoed on the response.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let id = request.headers[.requestID].flatMap(Self.acceptable) ?? context.id
        // One id per log line: Hummingbird's own `hb.request.id` becomes `request_id` (the
        // caller's id when it sent a usable one).
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger[metadataKey: "request_id"] = .string(id)
        var response = try await next(request, context)
        response.headers[.requestID] = id
        return response
    }

    static func acceptable(_ value: String) -> String? {
        guard (1...64).contains(value.count),
            value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else { return nil }
        return value
    }
}
