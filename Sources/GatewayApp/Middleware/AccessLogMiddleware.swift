import Logging
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird

/// The outermost middleware: the request id and the access log, in one async frame (two
/// middlewares cost a measurable share of a small request; see docs/benchmarks.md).
///
/// - **Request id**: the caller's `X-Request-Id` when it is short and plain, otherwise the one
///   Hummingbird generated. It is the logger's `request_id` for every line the request writes
///   (Hummingbird's own `hb.request.id` is dropped so lines carry one id) and is echoed on the
///   response.
/// - **Access log**: one structured line per request: method, path (never the query string,
///   which may carry credentials), status and duration. Paths under a secret prefix (a calendar
///   feed's `/calendar/{token}.ics`) are logged with the secret replaced by `[redacted]`. It
///   sits outside the error renderer, so errors are logged with the status they answered.
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
        var context = context
        let id = request.headers[.requestID].flatMap(Self.acceptableRequestID) ?? context.id
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger[metadataKey: "request_id"] = .string(id)
        let start = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.requestID] = id
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

    /// A caller's request id, if it is 1 to 64 letters, digits, `-`, `_` or `.`.
    static func acceptableRequestID(_ value: String) -> String? {
        guard (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 || $0 == 46 })
        else { return nil }
        return value
    }

    /// `elapsed` in milliseconds with two decimals (`0.05`, `12.40`), without Foundation's
    /// `String(format:)`, which costs more than the rest of the line.
    static func milliseconds(_ elapsed: Duration) -> String {
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return String(hundredths / 100) + (fraction < 10 ? ".0" : ".") + String(fraction)
    }
}
