import Logging
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// One structured log line per request: method, path (never the query string, which may carry
/// credentials), status and duration. Paths under a secret prefix (a calendar feed's
/// `/calendar/{token}.ics`) are logged with the secret replaced by `[redacted]`.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    /// Path prefixes whose next segment is a secret.
    var secretPrefixes: [String] = []

    /// The path as it may be logged.
    func loggable(_ path: String) -> String {
        for prefix in secretPrefixes where path.hasPrefix(prefix) && path.count > prefix.count {
            return prefix + "[redacted]"
        }
        return path
    }

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
                "path": "\(loggable(request.uri.path))",
                "status": "\(response.status.code)",
                "ms": "\(String(format: "%.2f", millis))",
            ]
        )
        return response
    }
}
