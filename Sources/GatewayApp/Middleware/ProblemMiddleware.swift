import Logging
import GatewayHTTP
import GRDB
import GatewayCore
import Hummingbird

/// Turns every error into a response: a compatibility protocol's own form under its prefix,
/// otherwise an RFC 9457 problem. Unexpected errors are logged with the request id and answer
/// a generic 500 that leaks nothing.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let renderers: [ErrorRenderer]

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let path = request.uri.path
            if let renderer = renderers.first(where: { $0.matches(path) }),
                let response = renderer.render(error, request)
            {
                return response
            }
            let problem = Self.problem(for: error, context: context)
            let requestID = context.logger[metadataKey: "request_id"].map { "\($0)" }
            return problem.response(instance: path, requestID: requestID)
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
        case let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED:
            context.logger.warning("database busy", metadata: ["error": "\(error.resultCode)"])
            return .unavailable(retryAfterSeconds: 1, detail: "The database is busy; try again.")
        default:
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return .internalError()
        }
    }
}
