import GatewayHTTP
import Metrics
import Prometheus

/// The process-wide Prometheus registry behind swift-metrics. swift-metrics allows one
/// bootstrap per process, so it happens once, the first time an application is built.
enum GatewayMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// The Prometheus text exposition of every metric.
    static func exposition() -> [UInt8] { registry.emitToBuffer() }
}
