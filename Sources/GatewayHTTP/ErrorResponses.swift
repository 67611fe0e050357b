import GatewayCore
public import Hummingbird
import Logging
import NIOCore
import Storage

/// Turns every error into a response: a compatibility protocol's own form under its prefix,
/// otherwise an RFC 9457 problem. Unexpected errors are logged with the request id and answer
/// a generic 500 that leaks nothing.
public struct ErrorResponses: Sendable {
    let renderers: [ErrorRenderer]

    /// Errors under a renderer's prefix answer in its protocol's form; all others as problems.
    public init(renderers: [ErrorRenderer]) {
        self.renderers = renderers
    }

    public func response(for error: any Error, request: Request, context: GatewayContext, requestID: String) -> Response {
        let error = Self.normalised(error, context: context)
        let path = request.uri.path
        guard let renderer = renderers.first(where: { $0.matches(path) }) else {
            return Self.problem(for: error, context: context).response(instance: path, requestID: requestID)
        }
        if let response = renderer.render(error, request) { return response }
        // What the protocol's renderer doesn't know becomes the problem it would be anywhere
        // (an unexpected error is logged here, with the request id), and the renderer answers
        // that in its protocol's form where it can: never problem+json under its prefix unless
        // the protocol has no form for it.
        let problem = Self.problem(for: error, context: context)
        return renderer.render(problem, request) ?? problem.response(instance: path, requestID: requestID)
    }

    /// Errors that mean the same under every prefix become problems before a protocol's
    /// renderer sees them, so each protocol answers them in its own form:
    /// - a body that outgrew the request's limit while it was collected (no declared length,
    ///   or a length that lied) answers the same 413 as a declared one, naming the limit;
    /// - a database that can't serve right now answers 503 with `Retry-After`: busy (1 s), or
    ///   its storage full or read-only (30 s: that lasts until an operator makes room);
    /// - text the database refuses to store (a NUL character, a value too long for an index)
    ///   is the request's fault: 400, never a 500.
    static func normalised(_ error: any Error, context: GatewayContext) -> any Error {
        switch error {
        case let error as HTTPError where error.status == .contentTooLarge:
            return Problem.payloadTooLarge(limit: context.maxUploadSize)
        case is NIOTooManyBytesError:
            return Problem.payloadTooLarge(limit: context.maxUploadSize)
        case let error where DatabaseAvailability.isStorageUnwritable(error):
            context.logger.error("database storage refuses writes", metadata: ["error": "\(DatabaseAvailability.summary(error))"])
            return Problem.unavailable(retryAfterSeconds: 30, detail: "The database can't store changes right now; try again later.")
        case let error where DatabaseAvailability.isTemporarilyUnavailable(error):
            context.logger.warning("database unavailable", metadata: ["error": "\(DatabaseAvailability.summary(error))"])
            return Problem.unavailable(retryAfterSeconds: 1, detail: "The database is busy; try again.")
        case let error where DatabaseAvailability.isUnstorableValue(error):
            context.logger.notice("unstorable value refused", metadata: ["error": "\(DatabaseAvailability.summary(error))"])
            return Problem.badRequest("A value can't be stored: text may not contain the NUL character (U+0000) and must fit its field.")
        default:
            return error
        }
    }

    static func problem(for error: any Error, context: GatewayContext) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as any ProblemConvertible:
            return error.problem
        case let error as HTTPError:
            switch error.status {
            case .notFound: return .notFound()
            case .contentTooLarge: return .payloadTooLarge(limit: context.maxUploadSize)
            case .methodNotAllowed: return .methodNotAllowed()
            case .badRequest: return .badRequest(error.body ?? "The request is malformed.")
            case .unauthorized: return .unauthenticated()
            case .forbidden: return .forbidden()
            default:
                return Problem(type: "http-\(error.status.code)", title: error.status.reasonPhrase, status: error.status, detail: error.body)
            }
        default:
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return .internalError()
        }
    }
}
