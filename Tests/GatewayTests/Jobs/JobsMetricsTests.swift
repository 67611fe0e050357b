import TestSupport
import GatewayHTTP
import Foundation
import GatewayApp
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Jobs
import Testing

@Suite("Jobs metrics reach /metrics")
struct JobsMetricsTests {
    /// Every metric on /metrics follows Prometheus's naming conventions: counters end in
    /// `_total`, histograms (durations, sizes) in `_seconds` or `_bytes`, no gauge pretends to be
    /// a counter, and what is running is `gateway_build_info` (always 1).
    @Test func everyMetricNameFollowsThePrometheusConventions() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            for path in ["/healthz", "/v1/me", "/nowhere"] { _ = try await client.json(.get, path) }
            let metrics = try await client.json(.get, "/metrics")
            var types: [String: String] = [:]
            for line in metrics.body.split(separator: "\n") where line.hasPrefix("# TYPE ") {
                let words = line.split(separator: " ")
                if words.count == 4 { types[String(words[2])] = String(words[3]) }
            }
            #expect(types["http_server_requests_total"] == "counter")
            #expect(types["http_server_request_duration_seconds"] == "histogram")
            #expect(types["gateway_build_info"] == "gauge")
            for (name, type) in types {
                switch type {
                case "counter": #expect(name.hasSuffix("_total"), "counter \(name)")
                case "histogram", "summary": #expect(name.hasSuffix("_seconds") || name.hasSuffix("_bytes"), "\(type) \(name)")
                default: #expect(!name.hasSuffix("_total"), "\(type) \(name) is named like a counter")
                }
                #expect(!name.hasPrefix("hb_"), "\(name): the old Hummingbird name")
                #expect(name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(name)")
            }
            let build = try #require(metrics.body.split(separator: "\n").first { $0.hasPrefix("gateway_build_info{") })
            #expect(build.contains(#"version="\#(BuildInfo.version)""#) && build.contains("commit=") && build.contains("swift="))
            #expect(build.hasSuffix(" 1.0") || build.hasSuffix(" 1"))
        }
    }

    @Test func workedQueuesExportCountsAndTimings() async throws {
        // A queue name of its own: metrics objects are made once per process and queue.
        let queue = "metrics-\(UUID().uuidString.prefix(8).lowercased())"
        let gateway = try TestGateway { $0.jobs.queues = [queue: 2] }
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.app.jobsRuntime
        try await gateway.withRouter { client async throws in
            let enqueued = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","queue":"\#(queue)"}"#, token: admin)
            #expect(enqueued.status == .created)
            let id = try #require(enqueued.object["id"] as? Int)
            let done = try await eventually { try await jobs.service.job(id: Int64(id))?.state == .completed }
            #expect(done)
            let metrics = try await client.json(.get, "/metrics")
            // Per kind and queue, as Oban and River report per worker.
            #expect(metrics.body.contains(#"jobs_completed_total{queue="\#(queue)",kind="diagnostics.noop"} 1"#), "\(metrics.body)")
            #expect(metrics.body.contains(#"jobs_duration_seconds_count{queue="\#(queue)",kind="diagnostics.noop"}"#))
            #expect(metrics.body.contains(#"jobs_wait_seconds_count{queue="\#(queue)",kind="diagnostics.noop"}"#))
            #expect(metrics.body.contains(#"jobs_running{queue="\#(queue)"}"#))
        }
    }
}
