import Foundation
import HTTPClient
import Telemetry
import Testing
import Tracing

/// Review 4 (issue 47), finding 5: with tracing on, the trace context (`traceparent`,
/// `tracestate`) goes only with requests to the deployment's own destinations, which ask for it
/// (``OutboundRequest/propagatesTraceContext``); a request built as a student's webhook or a Web
/// Push endpoint is built (the default) reaches a real loopback server without it.
///
/// Tracing is turned on in this process with a propagation-only instrument (no tracer, so spans
/// are the no-op ones): it writes a `traceparent` only from a context this suite binds, so the
/// suites that run beside it see no trace context of theirs.
@Suite("Outbound trace context", .timeLimit(.minutes(2)))
struct TraceContextPropagationTests {
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let tracestate = "campus=issue47"

    /// Bootstraps the process's instrument once, whichever test runs first.
    static let tracingOn: Void = {
        InstrumentationSystem.bootstrap(SuiteTracePropagation())
        GatewayTracing.enable()
    }()

    /// Runs `body` in a context carrying this suite's trace.
    static func inTrace<T>(_ body: () async throws -> T) async rethrows -> T {
        _ = tracingOn
        var context = ServiceContext.topLevel
        context[SuiteTraceKey.self] = traceparent
        return try await ServiceContext.$current.withValue(context) { try await body() }
    }

    @Test func aStudentsWebhookStandInReceivesNoTraceContext() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            // Built as the webhook channel builds a delivery: a POST with its own headers.
            let request = OutboundRequest(
                method: .post, url: server.url("/echo/hook"), headers: ["Content-Type": "application/json", "webhook-id": "msg_1"],
                body: Data(#"{"type":"test"}"#.utf8), timeout: .seconds(10), maxResponseBodySize: 64 * 1024
            )
            #expect(!request.propagatesTraceContext, "off unless a caller asks")
            let echo = try decodeEcho(try await Self.inTrace { try await client.execute(request) })
            #expect(GatewayTracing.isEnabled)
            #expect(echo.header("traceparent") == nil, "\(echo.headers)")
            #expect(echo.header("tracestate") == nil, "\(echo.headers)")
            #expect(echo.header("webhook-id") == "msg_1")
        }
    }

    @Test func aDeploymentDestinationStillJoinsTheTrace() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let request = OutboundRequest(url: server.url("/echo/registrar"), propagatesTraceContext: true)
            let echo = try decodeEcho(try await Self.inTrace { try await client.execute(request) })
            #expect(echo.header("traceparent") == Self.traceparent, "\(echo.headers)")
            #expect(echo.header("tracestate") == Self.tracestate, "\(echo.headers)")
            // Outside any trace, nothing is sent even when asked.
            _ = Self.tracingOn
            let untraced = try decodeEcho(try await client.execute(request))
            #expect(untraced.header("traceparent") == nil, "\(untraced.headers)")
        }
    }

    @Test func aCallersOwnTraceHeaderIsNotReplaced() async throws {
        try await withTestServer { server in
            let client = makeClient()
            defer { client.shutdown() }
            let own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            let request = OutboundRequest(url: server.url("/echo"), headers: ["traceparent": own], propagatesTraceContext: true)
            let echo = try decodeEcho(try await Self.inTrace { try await client.execute(request) })
            #expect(echo.headers.filter { $0[0].lowercased() == "traceparent" }.map { $0[1] } == [own])
        }
    }
}

/// The suite's trace, as a context value.
private enum SuiteTraceKey: ServiceContextKey {
    typealias Value = String
}

/// Writes `traceparent` and `tracestate` for a context carrying ``SuiteTraceKey``, and nothing
/// for any other; reads nothing (no other suite's request joins this suite's trace).
private struct SuiteTracePropagation: Instrument {
    func inject<Carrier, Inject>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject: Injector, Carrier == Inject.Carrier {
        guard let traceparent = context[SuiteTraceKey.self] else { return }
        injector.inject(traceparent, forKey: "traceparent", into: &carrier)
        injector.inject(TraceContextPropagationTests.tracestate, forKey: "tracestate", into: &carrier)
    }

    func extract<Carrier, Extract>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract: Extractor, Carrier == Extract.Carrier {}
}
