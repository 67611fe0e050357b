import Logging
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// One structured log line per request: method, path (never the query string, which may carry
/// credentials), status and duration.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let millis = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "ms": "\(String(format: "%.2f", millis))",
            ]
        )
        return response
    }
}
