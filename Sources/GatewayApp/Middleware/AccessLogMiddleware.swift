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
        guard context.logger.logLevel <= .info else { return response }
        let elapsed = ContinuousClock.now - start
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(loggable(request.uri.path)),
                "status": .string(String(response.status.code)),
                "ms": .string(Self.milliseconds(elapsed)),
            ]
        )
        return response
    }

    /// `elapsed` in milliseconds with two decimals (`0.05`, `12.40`), without Foundation's
    /// `String(format:)`, which costs more than the rest of the line.
    static func milliseconds(_ elapsed: Duration) -> String {
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return String(hundredths / 100) + (fraction < 10 ? ".0" : ".") + String(fraction)
    }
}
