import Hummingbird

/// Lets through only requests bearing `Authorization: Bearer <token>` (compared in constant
/// time); anything else is a 404, as if the admin routes were not there.
struct AdminTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let header = request.headers[.authorization] ?? ""
        let prefix = "Bearer "
        guard header.hasPrefix(prefix), constantTimeEquals(String(header.dropFirst(prefix.count)), token) else {
            throw HTTPError(.notFound)
        }
        return try await next(request, context)
    }
}
