import Foundation
import Testing
import TestSupport

/// Review 4 (issue 47), finding 5: `gateway serve` with traces on continues a caller's
/// `traceparent` only when the caller is a trusted proxy (`GATEWAY_TRUSTED_PROXIES`) or the
/// operator trusts every caller (`GATEWAY_TRACE_TRUST_INCOMING=true`). An anonymous caller's
/// trace id is not adopted: its request is a trace of its own, as the exported spans (an OTLP
/// receiver on 127.0.0.1) show.
@Suite("Incoming trace context: trusted callers only", .serialized)
struct TraceContextTrustTests {
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let parentID = "00f067aa0ba902b7"

    enum Trust: String, CaseIterable, CustomTestStringConvertible {
        case nobody, trustedProxy, everyone
        var testDescription: String { rawValue }

        var environment: [String: String] {
            switch self {
            case .nobody: [:]
            case .trustedProxy: ["GATEWAY_TRUSTED_PROXIES": "127.0.0.1/32"]
            case .everyone: ["GATEWAY_TRACE_TRUST_INCOMING": "true"]
            }
        }
    }

    @Test(arguments: Trust.allCases) func aCallersTraceparentIsContinuedOnlyWhenTrusted(_ trust: Trust) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trace-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let collector = try LoopbackReceiver(host: "127.0.0.1", behaviour: .answer, lifetime: .seconds(120))
        defer { collector.stop() }
        var environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
            "OTEL_SERVICE_NAME": "campus-gateway-trust", "OTEL_BSP_SCHEDULE_DELAY": "200",
        ]
        environment.merge(trust.environment) { _, new in new }
        let server = try await LoggingGateway.started(
            arguments: ["--database", directory.appendingPathComponent("gateway.sqlite").path, "--no-workers"], directory: directory,
            logLevel: "notice", environment: environment
        )
        defer { server.kill9() }
        let client = ChildClient(port: server.port)
        let reply = try await client.send(
            "GET", "/v1/terms", headers: ["traceparent": "00-\(Self.traceID)-\(Self.parentID)-01", "tracestate": "forged=1"]
        )
        #expect(reply.status == 200, "\(reply.text)")
        // A clean stop flushes the exporter's last batch.
        #expect(server.terminate() == 0)

        let trace = ExportedSpans(collector.requests.filter { $0.requestLine.hasPrefix("POST /v1/traces ") }.map(\.body))
        let request = try #require(trace.spans.first { $0.name == "GET /v1/terms" }, "\(trace.names)")
        switch trust {
        case .nobody:
            #expect(request.traceID != Self.traceID && request.parentSpanID.isEmpty, "a trace of its own: \(request)")
            #expect(!trace.spans.contains { $0.traceID == Self.traceID }, "no span joined the caller's trace")
        case .trustedProxy, .everyone:
            #expect(request.traceID == Self.traceID && request.parentSpanID == Self.parentID, "the caller's trace continued: \(request)")
        }
    }
}
