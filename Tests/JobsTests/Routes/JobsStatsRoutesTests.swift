import Foundation
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Jobs
import TestSupport
import Testing

/// `GET /v1/admin/jobs/stats` on both backends: the counts recorded with each outcome and
/// enqueue equal the jobs actually run, per step and queue, with run-time percentiles from the
/// histogram, and the query's bounds.
@Suite("Jobs stats")
struct JobsStatsRoutesTests {
    static func series(_ reply: HTTPReply, _ queue: String) -> [String: Any]? {
        (reply.object["queues"] as? [[String: Any]])?.first { $0["queue"] as? String == queue }
    }

    @Test(arguments: TestBackend.all) func statsCountTheJobsActuallyRun(_ backend: TestBackend) async throws {
        let gateway = try await JobsRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.module.runtime
        try await gateway.withRouter { client async throws in
            for _ in 0..<5 { _ = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop"}"#, token: admin) }
            for index in 0..<3 {
                _ = try await client.json(
                    .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.fail","args":{"message":"m\#(index)"},"maxAttempts":2}"#, token: admin)
            }
            _ = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","queue":"other"}"#, token: admin)
            // A duplicate unique key enqueues nothing and counts nothing.
            _ = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"u"}"#, token: admin)
            _ = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","uniqueKey":"u"}"#, token: admin)
            let firstRun = try await jobs.pool.drain()
            _ = try await jobs.pool.drain(queue: "other")
            // A roll-up of the enqueue rows changes nothing the route says.
            await jobs.pool.runMaintenance()
            // The failures come due again (a minute later) and fail for good.
            gateway.clock.advance(by: 3600)
            let secondRun = try await jobs.pool.drain()
            #expect(firstRun.count == 9 && secondRun.count == 3)

            let reply = try await client.json(.get, "/v1/admin/jobs/stats?window=2h&step=1m", token: admin)
            #expect(reply.status == .ok, "\(reply.body)")
            #expect(reply.object["stepSeconds"] as? Int == 60)
            let all = try #require(Self.series(reply, "default"), "\(reply.body)")
            let total = try #require(all["total"] as? [String: Any])
            let completedListed = try await client.json(.get, "/v1/admin/jobs?state=completed&queue=default", token: admin).object["total"] as? Int
            #expect(total["completed"] as? Int == completedListed && completedListed == 6)
            #expect(total["retryable"] as? Int == 3, "each failure's first attempt")
            let discardedListed = try await client.json(.get, "/v1/admin/jobs?state=discarded", token: admin).object["total"] as? Int
            #expect(total["discarded"] as? Int == discardedListed && discardedListed == 3)
            #expect(total["enqueued"] as? Int == 9, "5 noop, 3 fail, 1 unique (its duplicate not)")
            #expect(total["cancelled"] as? Int == 0)
            #expect(total["runMsMedian"] is Double && total["runMsP95"] is Double, "\(total)")
            let buckets = try #require(all["buckets"] as? [[String: Any]])
            #expect(buckets.count == 120, "2 hours of minutes")
            // The steps add up to the total, and fall in two minutes an hour apart.
            for key in ["completed", "retryable", "discarded", "enqueued"] {
                #expect(buckets.compactMap { $0[key] as? Int }.reduce(0, +) == total[key] as? Int, "\(key)")
            }
            #expect(buckets.filter { ($0["completed"] as? Int ?? 0) + ($0["discarded"] as? Int ?? 0) > 0 }.count == 2)
            #expect(buckets.last?["discarded"] as? Int == 3)
            #expect(buckets.first { ($0["completed"] as? Int ?? 0) == 0 && ($0["enqueued"] as? Int ?? 0) == 0 }?["runMsMedian"] is NSNull)
            #expect((Self.series(reply, "other")?["total"] as? [String: Any])?["completed"] as? Int == 1)

            // One queue only; coarser steps.
            let one = try await client.json(.get, "/v1/admin/jobs/stats?window=1d&step=1h&queue=other", token: admin)
            #expect(one.status == .ok && (one.object["queues"] as? [[String: Any]])?.map { $0["queue"] as? String } == ["other"], "\(one.body)")
            #expect((Self.series(one, "other")?["buckets"] as? [Any])?.count == 24)

            for bad in ["window=0m", "window=8d", "window=1y", "step=30s", "window=1h&step=7m", "window=7d&step=1m", "step=", "queue=a%20b",
                        "window=999999999999h"] {
                let refused = try await client.json(.get, "/v1/admin/jobs/stats?\(bad)", token: admin)
                #expect(refused.status == .badRequest, "\(bad): \(refused.status)")
            }
            let student = try await gateway.account("student1", role: .student)
            #expect(try await client.json(.get, "/v1/admin/jobs/stats", token: student).status == .forbidden)

            // Kept 7 days: the chores prune older minutes.
            gateway.clock.advance(by: 8 * 86400)
            await jobs.pool.runMaintenance()
            let later = try await client.json(.get, "/v1/admin/jobs/stats?window=7d&step=1d", token: admin)
            #expect((later.object["queues"] as? [Any])?.isEmpty == true, "\(later.body)")
        }
    }

    @Test func percentilesComeFromTheHistogram() {
        #expect(JobStatsMetric.percentile(0.5, of: [Int](repeating: 0, count: JobStatsMetric.bucketCount)) == nil)
        var histogram = [Int](repeating: 0, count: JobStatsMetric.bucketCount)
        histogram[JobStatsMetric.bucket(forRunMs: 15)] = 90 // 10..<20 ms
        histogram[JobStatsMetric.bucket(forRunMs: 700)] = 10 // 500..<1000 ms
        let median = try! #require(JobStatsMetric.percentile(0.5, of: histogram))
        #expect((10...20).contains(median))
        let p95 = try! #require(JobStatsMetric.percentile(0.95, of: histogram))
        #expect((500...1000).contains(p95))
        #expect(JobStatsMetric.bucket(forRunMs: 0) == 0 && JobStatsMetric.bucket(forRunMs: 10_000_000) == JobStatsMetric.bucketCount - 1)
    }
}
