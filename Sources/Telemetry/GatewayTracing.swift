public import Tracing
import Synchronization

/// The gateway's use of swift-distributed-tracing: off (and costing one relaxed atomic load per
/// span site) until ``enable()`` is called, which the application does when an OTLP endpoint is
/// configured (`OTEL_EXPORTER_OTLP_ENDPOINT`); then spans go to the tracer bootstrapped in
/// `InstrumentationSystem`.
///
/// Span sites: inbound requests (the front door), database transactions (both backends),
/// outbound HTTP and SMTP (the curl clients), and job runs, each job under the trace context
/// stored when it was queued (``traceparent()``). Attributes never carry secrets: no query
/// strings, headers, bodies, credentials or full URLs, only methods, route templates, hosts,
/// statuses, kinds and ids.
public enum GatewayTracing {
    private static let enabled = Atomic<Bool>(false)

    /// Whether spans are made.
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Turns spans on for the rest of the process.
    public static func enable() { enabled.store(true, ordering: .relaxed) }

    /// Runs `operation` in a span named `name` when tracing is on (`span` is nil when it is off).
    public static func span<T>(
        _ name: String, ofKind kind: SpanKind = .internal, context: ServiceContext? = nil,
        _ operation: (_ span: (any Span)?) async throws -> T
    ) async throws -> T {
        guard isEnabled else { return try await operation(nil) }
        return try await withSpan(name, context: context ?? .current ?? .topLevel, ofKind: kind) { span in
            do {
                return try await operation(span)
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
        }
    }

    /// The current trace context as a W3C `traceparent` value, to store beside work that runs
    /// later (a job); nil when tracing is off or no span is current.
    public static func traceparent() -> String? {
        guard isEnabled, let context = ServiceContext.current else { return nil }
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryInjector())
        guard let value = carrier["traceparent"], value.utf8.count <= 128 else { return nil }
        return value
    }

    /// A service context continuing the trace of a stored `traceparent` (nil when there is none
    /// or it does not parse).
    public static func context(continuing traceparent: String?) -> ServiceContext? {
        guard isEnabled, let traceparent, traceparent.utf8.count <= 128 else { return nil }
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(["traceparent": traceparent], into: &context, using: DictionaryExtractor())
        return context
    }

    /// Adds the current trace's `traceparent` (and `tracestate`) to outgoing request headers, so
    /// an upstream that traces joins the same trace. Only for the deployment's own destinations
    /// (the HTTP client calls it for requests that set `propagatesTraceContext`): a trace id sent
    /// to a user-supplied URL would tell one person which trace another's request was in.
    public static func inject(into headers: inout [String: String]) {
        guard isEnabled, let context = ServiceContext.current else { return }
        InstrumentationSystem.instrument.inject(context, into: &headers, using: DictionaryInjector())
    }

    /// Runs a synchronous `body` with `context` as the current service context: for work handed
    /// to another thread (a database queue), where task-locals do not follow.
    public static func withContext<T>(_ context: ServiceContext?, _ body: () throws -> T) rethrows -> T {
        guard isEnabled, let context else { return try body() }
        return try ServiceContext.$current.withValue(context, operation: body)
    }

    struct DictionaryInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
    }

    struct DictionaryExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    }
}

extension GatewayTracing {
    /// A database transaction as a span (``GatewayTracing``): `read` or `write` on `system`, the
    /// body run with the span as its current context even on the database's own thread, so what it
    /// queues (a job) joins the trace. Without tracing, `run` alone.
    public static func transaction<T: Sendable>(
        _ access: String, system: String, _ run: @escaping @Sendable (ServiceContext?) async throws -> T
    ) async throws -> T {
        guard isEnabled else { return try await run(nil) }
        return try await span("\(system) \(access)", ofKind: .client) { span in
            span?.attributes["db.system"] = system
            span?.attributes["db.operation.name"] = access
            return try await run(ServiceContext.current)
        }
    }
}
