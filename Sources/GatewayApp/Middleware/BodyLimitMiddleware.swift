import GatewayCore
import Hummingbird

/// Rejects a request whose declared `Content-Length` exceeds the limit before reading it.
/// Bodies without a length are bounded where they are collected (`collect(upTo:)`).
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let limit: Int

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        return try await next(request, context)
    }
}
