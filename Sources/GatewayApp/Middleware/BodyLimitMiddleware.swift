import NIOCore
import GatewayHTTP
import GatewayCore
import Hummingbird

/// The one place that sets the request body limit: it rejects a request whose declared
/// `Content-Length` exceeds the limit before reading it, and puts the limit in the context
/// (`maxUploadSize`), where every body is collected with it (`collect(upTo:)`), so bodies
/// without a length are bounded the same way.
///
/// A few paths (catalog uploads) take larger bodies; they are listed with their own limit and
/// collect their bodies with the same bound. The larger limit needs an `Authorization` header
/// (the route then checks it), so an anonymous client can't make the server read a large body.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let limit: Int
    /// Exact request paths with a limit of their own.
    var exceptions: [String: Int] = [:]

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        var limit = self.limit
        if !exceptions.isEmpty, request.headers[.authorization] != nil, let larger = exceptions[request.uri.path] {
            limit = larger
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.payloadTooLarge(limit: limit)
        }
        var context = context
        context.maxUploadSize = limit
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            // A body without a declared length outgrew the limit while it was collected.
            throw Problem.payloadTooLarge(limit: limit)
        } catch is NIOTooManyBytesError {
            // The same, as `collect(upTo:)` reports it.
            throw Problem.payloadTooLarge(limit: limit)
        }
    }
}
