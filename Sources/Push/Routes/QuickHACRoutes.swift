import Foundation
import GatewayCore
public import GatewayHTTP
public import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// The QuickHAC push API at `/ios/` (seed 004): `register` (alias `register_device`),
/// `account_add`, `account_remove`, `student_add`, `student_remove`, as POST form bodies,
/// answering JSON with `status`. A missing parameter answers 406, a processing error 418, and
/// a request over plain HTTP 501 when the server requires HTTPS (the renderer below turns the
/// HTTPS-only refusal into it). The trailing slash is optional.
public struct QuickHACRoutes: Sendable {
    let service: QuickHACService

    public init(service: QuickHACService) {
        self.service = service
    }

    public static let prefix = "/ios/"

    public func register(with guarded: RouteGuard, on router: some RouterMethods<GatewayContext>) {
        let service = self.service
        let group = guarded.group(router, "ios", access: .public)
        for method in ["register", "register_device", "account_add", "account_remove", "student_add", "student_remove"] {
            let handler: @Sendable (Request, GatewayContext) async throws -> Response = { request, context in
                do {
                    try service.admit(client: context.clientAddress)
                    let form = try await Self.form(request, context: context)
                    return try await Self.run(method, form: form, client: context.clientAddress, service: service)
                } catch let throttled as QuickHACService.Throttled {
                    var response = Self.answer(["status": -1, "lastError": 429], message: "too many requests", status: .tooManyRequests)
                    response.headers[.retryAfter] = String(throttled.retryAfter)
                    return response
                }
            }
            // Hummingbird matches `register` and `register/` alike.
            group.post(method, use: handler)
        }
    }

    static func run(_ method: String, form: [String: String], client: String?, service: QuickHACService) async throws -> Response {
        func need(_ name: String) throws -> String {
            guard let value = form[name], !value.isEmpty else { throw QuickHACMissing(parameter: name) }
            return value
        }
        do {
            switch method {
            case "register", "register_device":
                let status = try await service.register(uuid: try need("uuid"), token: form["token"])
                return answer(["status": status, "lastError": 0])
            case "account_add":
                let (uuid, user, pass, district) = (try need("uuid"), try need("user"), try need("pass"), try need("district"))
                return answer(["status": try await service.addAccount(uuid: uuid, user: user, password: pass, district: district, client: client)])
            case "account_remove":
                let (uuid, user) = (try need("uuid"), try need("user"))
                return answer(["status": try await service.removeAccount(uuid: uuid, user: user)])
            case "student_add":
                let (uuid, user, id) = (try need("uuid"), try need("user"), try need("id"))
                return answer(["status": try await service.addStudent(uuid: uuid, user: user, student: id, client: client)])
            default:
                let (uuid, user, id) = (try need("uuid"), try need("user"), try need("id"))
                return answer(["status": try await service.removeStudent(uuid: uuid, user: user, student: id)])
            }
        } catch let refusal as QuickHACService.Refusal {
            return answer(["status": -1, "lastError": refusal.code], message: refusal.message, status: .init(code: 418))
        }
    }

    /// The form parameters of a POST body (`application/x-www-form-urlencoded`), or of the
    /// query string when the body has none.
    static func form(_ request: Request, context: GatewayContext) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: min(context.maxUploadSize, 64 * 1024))
        var text = String(buffer: buffer)
        if text.isEmpty { text = request.uri.query ?? "" }
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0]), value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    static func decode(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }

    static func answer(_ object: [String: Int], message: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        var body: [String: Any] = object
        if let message { body["error"] = message }
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Errors under `/ios/` as QuickHAC clients read them: 406 for a missing parameter, 501 for
    /// plain HTTP where HTTPS is required, 404 for an unknown method, and 418 for the rest.
    public static var errorRenderer: ErrorRenderer {
        ErrorRenderer(pathPrefix: prefix) { error, _ in
            switch error {
            case let missing as QuickHACMissing:
                return answer(["status": -1, "lastError": 1], message: "missing parameter \(missing.parameter)", status: .notAcceptable)
            case let problem as Problem where problem.type == "/problems/https-required":
                return answer(["status": -1, "lastError": 501], message: "requests must use HTTPS", status: .notImplemented)
            case let problem as Problem where problem.status == .notFound || problem.status == .methodNotAllowed:
                return answer(["status": -1, "lastError": 404], message: "unknown method", status: problem.status)
            case let http as HTTPError where http.status == .notFound || http.status == .methodNotAllowed:
                return answer(["status": -1, "lastError": 404], message: "unknown method", status: http.status)
            case let http as HTTPError where http.status == .contentTooLarge:
                return answer(["status": -1, "lastError": 413], message: "request too large", status: .contentTooLarge)
            default:
                return answer(["status": -1, "lastError": 500], message: "the request could not be processed", status: .init(code: 418))
            }
        }
    }
}

/// A required QuickHAC parameter was not sent.
struct QuickHACMissing: Error {
    let parameter: String
}
