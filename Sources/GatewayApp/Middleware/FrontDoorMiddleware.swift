import GatewayCore
import HTTPTypes
import Telemetry
import Tracing
import GatewayHTTP
import Hummingbird

/// The one middleware every request passes, in a single async frame (each middleware is an
/// async call with its own frame and executor checks, a measurable share of a small request;
/// see docs/benchmarks.md). In order:
///
/// 1. the request id (``AccessLog/requestID(of:context:)``) and the in-flight gauge;
/// 2. the admissions (``RequestAdmission``: trusted proxies, HTTPS only, the body limit),
///    which may refuse the request;
/// 3. the route; whatever it or an admission throws becomes a response (``ErrorResponses``),
///    so the metrics and the access log see the status the client got;
/// 4. the security headers (``SecurityHeaders``) and the request id on the response, the metrics (``RequestMetrics``) and the access
///    line (``AccessLog``);
/// 5. a 404 for a path served with other methods made a 405 with `Allow` (``AllowedMethods``);
/// 6. for HEAD, the body dropped and the headers kept (``HeadRequests``).
///
/// With tracing on (``GatewayTracing``), all of it runs in a server span named by method and
/// route template (`GET /v1/registration/classes/{classId}`) with the method, route and status as
/// attributes (never the path, its query or headers). The span continues the caller's
/// `traceparent` (and `tracestate`) only when the caller is trusted with it (``IncomingTraceTrust``:
/// a trusted proxy, or every caller with `GATEWAY_TRACE_TRUST_INCOMING`); anyone else's request
/// starts a trace of its own, so an anonymous caller cannot pick the trace id the gateway's
/// jobs and calls to the campus provider, the registrar and gradebooks carry.
struct FrontDoorMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    /// Whose incoming trace context is continued.
    var traceTrust = IncomingTraceTrust(trustedProxies: [], trustEveryone: false)
    let admissions: [any RequestAdmission]
    let errors: ErrorResponses
    let metrics: RequestMetrics
    let accessLog: AccessLog
    let securityHeaders: SecurityHeaders
    /// The methods each served path takes: another method there is a 405, not a 404.
    let allowedMethods: AllowedMethods

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        guard GatewayTracing.isEnabled else { return try await serve(request, context: context, next: next, span: nil) }
        var parent = ServiceContext.current ?? .topLevel
        if traceTrust.trusts(peer: context.peerAddress) {
            InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        }
        return try await withSpan(request.method.rawValue, context: parent, ofKind: .server) { span in
            try await serve(request, context: context, next: next, span: span)
        }
    }

    private func serve(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response, span: (any Span)?
    ) async throws -> Response {
        let start = ContinuousClock.now
        var context = context
        let requestID = AccessLog.requestID(of: request, context: &context)
        let inFlight = metrics.started(request.method)
        var response: Response
        var failed = false
        do {
            for admission in admissions { try admission.admit(request, context: &context) }
            response = try await next(request, context)
        } catch {
            failed = true
            response = errors.response(for: error, request: request, context: context, requestID: requestID)
        }
        if response.status == .notFound, let refusal = allowedMethods.refusal(for: request) {
            // No route took this method here (a served method's own 404 is left alone).
            response = errors.response(for: HTTPError(.methodNotAllowed), request: request, context: context, requestID: requestID)
            // The SDSU protocol answers any URL it does not serve, wrong method included, with its
            // HTML 404 (seed 000); that answer gets no Allow.
            if response.status == .methodNotAllowed { response.headers[.allow] = refusal.allow }
        }
        securityHeaders.apply(to: &response.headers)
        response.headers[.requestID] = requestID
        let elapsed = ContinuousClock.now - start
        metrics.finished(
            inFlight, route: context.endpointPath ?? "NotFound", method: request.method, status: response.status, failed: failed,
            nanoseconds: UInt64(clamping: elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        )
        if let span {
            let route = context.endpointPath ?? "NotFound"
            span.operationName = "\(request.method.rawValue) \(route)"
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["http.route"] = route
            span.attributes["http.response.status_code"] = Int(response.status.code)
            span.attributes["request.id"] = requestID
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
        }
        accessLog.record(request, status: response.status, elapsed: elapsed, requestID: requestID, logger: context.logger)
        return request.method == .head ? HeadRequests.withoutBody(response) : response
    }
}

/// Whose `traceparent` and `tracestate` the front door continues: a peer among the trusted
/// proxies (`GATEWAY_TRUSTED_PROXIES`, which propagate their own trace or one they accepted), or
/// anyone when the operator says every caller's context is trusted
/// (`GATEWAY_TRACE_TRUST_INCOMING=true`: the gateway is reached only through a tracing proxy).
struct IncomingTraceTrust: Sendable {
    let trustedProxies: [AddressRange]
    let trustEveryone: Bool

    func trusts(peer: String?) -> Bool {
        trustEveryone || ForwardedFor.isTrusted(peer, in: trustedProxies)
    }
}

/// Reads a trace context (`traceparent`, `tracestate`) from request headers.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
