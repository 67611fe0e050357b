import GatewayCore
import GatewayHTTP
import Hummingbird
import Logging

/// The request id and the access log line.
///
/// - **Request id**: the caller's `X-Request-Id` when it is short and plain, otherwise the one
///   Hummingbird generated for the request. Every line the request logs carries it as
///   `request_id` (the log handler writes Hummingbird's `hb.request.id` under that name, so the
///   logger is only rewritten when the caller brought an id), and it is echoed on the response.
/// - **Access log**: one structured line per request: method, path (never the query string,
///   which may carry credentials), status and duration. Paths under a secret prefix (a calendar
///   feed's `/calendar/{token}.ics`) are logged with the secret replaced by `[redacted]`.
struct AccessLog: Sendable {
    /// Path prefixes whose next segment is a secret.
    var secretPrefixes: [String] = []

    /// The request's id, adopting the caller's acceptable `X-Request-Id` into the logger.
    static func requestID(of request: Request, context: inout GatewayContext) -> String {
        if let supplied = request.headers[.requestID].flatMap(acceptableRequestID) {
            context.logger[metadataKey: "hb.request.id"] = .string(supplied)
            return supplied
        }
        return context.id
    }

    /// A caller's request id, if it is 1 to 64 letters, digits, `-`, `_` or `.`.
    static func acceptableRequestID(_ value: String) -> String? {
        guard (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 || $0 == 46 })
        else { return nil }
        return value
    }

    /// Writes the request's line at `info`. The id is passed along (it replaces the logger's
    /// own under the same key) so the line doesn't format it a second time.
    func record(_ request: Request, status: HTTPResponse.Status, elapsed: Duration, requestID: String, logger: Logger) {
        guard logger.logLevel <= .info else { return }
        let method = request.method.rawValue, path = loggable(request.uri.path)
        let code = String(status.code), ms = Self.milliseconds(elapsed)
        if let handler = logger.handler as? GatewayLogHandler,
            handler.logRequest(sortedFields: ["method": method, "ms": ms, "path": path, "request_id": requestID, "status": code])
        {
            return
        }
        logger.info(
            "request",
            metadata: [
                "request_id": .string(requestID), "method": .string(method), "path": .string(path),
                "status": .string(code), "ms": .string(ms),
            ]
        )
    }

    /// The path as it may be logged.
    func loggable(_ path: String) -> String {
        for prefix in secretPrefixes where path.hasPrefix(prefix) && path.count > prefix.count {
            return prefix + "[redacted]"
        }
        return path
    }

    /// `elapsed` in milliseconds with two decimals (`0.05`, `12.40`), without Foundation's
    /// `String(format:)`, which costs more than the rest of the line.
    static func milliseconds(_ elapsed: Duration) -> String {
        let hundredths = elapsed.components.seconds * 100_000 + elapsed.components.attoseconds / 10_000_000_000_000
        let fraction = hundredths % 100
        return String(hundredths / 100) + (fraction < 10 ? ".0" : ".") + String(fraction)
    }
}
