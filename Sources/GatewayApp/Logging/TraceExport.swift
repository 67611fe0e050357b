import GatewayCore
public import Logging
import OTel
public import ServiceLifecycle
import Telemetry
import Tracing

/// Trace export over OTLP/HTTP with swift-otel, configured by OpenTelemetry's standard
/// variables and off unless an endpoint is set:
/// - `OTEL_EXPORTER_OTLP_ENDPOINT` (spans go to `<endpoint>/v1/traces`) or
///   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`;
/// - `OTEL_SERVICE_NAME` (default `campus-gateway`), `OTEL_RESOURCE_ATTRIBUTES`;
/// - `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` (default `parentbased_always_on`);
/// - `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or `http/json`) and the
///   exporter's headers, timeout and certificate variables.
/// Only traces: metrics stay on `/metrics`, logs on standard error.
public enum TraceExport {
    /// Whether `environment` names an OTLP endpoint for traces.
    public static func isConfigured(_ environment: [String: String]) -> Bool {
        ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { !(environment[$0] ?? "").isEmpty }
            && (environment["OTEL_SDK_DISABLED"] ?? "").lowercased() != "true"
    }

    /// The log metadata that puts `trace_id` and `span_id` on every line written in a span.
    public static func logMetadata() -> Logger.MetadataProvider {
        OTel.makeLoggingMetadataProvider()
    }

    /// With an endpoint: bootstraps the process's tracer, turns the gateway's spans on, and
    /// returns the exporter's service (to run beside the server; it sends what is left when it
    /// stops). Nil without one. Its own complaints (an unreachable collector) go to the log, in
    /// the log's format.
    public static func start(environment: [String: String]) throws -> (any Service)? {
        guard isConfigured(environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "campus-gateway"
        configuration.resourceAttributes["service.version"] = BuildInfo.current.version
        configuration.traces.enabled = true
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        configuration.diagnosticLogger = .custom(Logger(label: "campus-gateway.otel"))
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        GatewayTracing.enable()
        return backend.service
    }
}
