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
    @Test func workedQueuesExportCountsAndTimings() async throws {
        // A queue name of its own: metrics objects are made once per process and queue.
        let queue = "metrics-\(UUID().uuidString.prefix(8).lowercased())"
        let gateway = try TestGateway { $0.jobs.queues = [queue: 2] }
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.app.modules.jobs.runtime
        try await gateway.withRouter { client async throws in
            let enqueued = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","queue":"\#(queue)"}"#, token: admin)
            #expect(enqueued.status == .created)
            let id = try #require(enqueued.object["id"] as? Int)
            let done = try await eventually { try await jobs.service.job(id: Int64(id))?.state == .completed }
            #expect(done)
            let metrics = try await client.json(.get, "/metrics")
            #expect(metrics.body.contains(#"jobs_completed_total{queue="\#(queue)"} 1"#))
            #expect(metrics.body.contains(#"jobs_duration_seconds_count{queue="\#(queue)"}"#))
            #expect(metrics.body.contains(#"jobs_running{queue="\#(queue)"}"#))
        }
    }
}
