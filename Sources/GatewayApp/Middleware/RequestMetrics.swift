import Dispatch
import HTTPTypes
import Metrics
import Synchronization

/// Per-request metrics by Prometheus's conventions, with OpenTelemetry's attribute names as
/// labels: `http_server_requests_total` and `http_server_request_duration_seconds` by route
/// template, method and status, `http_server_request_errors_total` for requests whose handler
/// failed, and `http_server_active_requests` by method. (Until this release the first three were
/// Hummingbird's `hb_requests`, `http_server_request_duration` and `hb_request_errors`.)
/// The metric handles are made once per label set and kept, so a request costs two
/// dictionary lookups under a lock, not a factory lookup per metric.
final class RequestMetrics: Sendable {
    struct Endpoint: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }
    struct EndpointHandles {
        let requests: Counter
        let duration: Timer
        let errors: Counter
    }

    private let active = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let endpoints = Mutex<[Endpoint: EndpointHandles]>([:])

    /// Counts a request in flight until `finished` is called with its outcome.
    func started(_ method: HTTPRequest.Method) -> Meter {
        let meter = active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http_server_active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = meter
            return meter
        }
        meter.increment()
        return meter
    }

    /// Records a finished request: `route` is the matched route's template (`NotFound` when
    /// none matched), `failed` whether its handler threw (the status is then the rendered one).
    func finished(_ meter: Meter, route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, failed: Bool, nanoseconds: UInt64) {
        let key = Endpoint(route: route, method: method, status: status)
        let handles = endpoints.withLock { handles in
            if let existing = handles[key] { return existing }
            let dimensions = [("http.route", route), ("http.request.method", method.rawValue), ("http.response.status_code", String(status.code))]
            let made = EndpointHandles(
                requests: Counter(label: "http_server_requests_total", dimensions: dimensions),
                duration: Timer(label: "http_server_request_duration_seconds", dimensions: dimensions, preferredDisplayUnit: .seconds),
                errors: Counter(
                    label: "http_server_request_errors_total",
                    dimensions: [("http.route", route), ("http.request.method", method.rawValue), ("error.type", String(status.code))]
                )
            )
            handles[key] = made
            return made
        }
        handles.requests.increment()
        handles.duration.recordNanoseconds(Int64(clamping: nanoseconds))
        if failed { handles.errors.increment() }
        meter.decrement()
    }
}
