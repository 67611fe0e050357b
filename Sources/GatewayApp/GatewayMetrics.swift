import GatewayCore
import GatewayHTTP
import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics. swift-metrics allows one
/// bootstrap per process, so it happens once, the first time an application is built.
enum GatewayMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        // What is running, as Prometheus's *_build_info convention has it: always 1, the facts
        // in its labels (`gateway_build_info{version,commit,swift} 1`).
        let build = BuildInfo.current
        registry.makeGauge(
            name: "gateway_build_info",
            labels: [("version", build.version), ("commit", build.commit ?? "unknown"), ("swift", build.swift)]
        ).set(1.0)
        return registry
    }()

    /// The Prometheus text exposition of every metric.
    static func exposition() -> [UInt8] { registry.emitToBuffer() }
}
