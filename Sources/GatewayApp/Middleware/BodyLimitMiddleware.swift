import GatewayCore
import Hummingbird

/// Rejects a request whose declared `Content-Length` exceeds the limit before reading it.
/// Bodies without a length are bounded where they are collected (`collect(upTo:)`).
///
/// A few paths (catalog uploads) take larger bodies; they are listed with their own limit and
/// collect their bodies with the same bound.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let limit: Int
    /// Exact request paths with a limit of their own.
    var exceptions: [String: Int] = [:]

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        let limit = exceptions.isEmpty ? self.limit : exceptions[request.uri.path] ?? self.limit
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        return try await next(request, context)
    }
}
