import Foundation
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Jobs
import Synchronization
import TestSupport
import Testing

/// `PATCH /v1/admin/queues/{name}` and `GET /v1/admin/instances` on both backends, with two
/// instances (two job runtimes with workers, each with its own connections) on one database.
@Suite("Queue concurrency and instances")
struct JobsQueueConcurrencyTests {
    /// How many `test.hold` jobs run at once, per instance, at most.
    final class Overlap: Sendable {
        private let state = Mutex<(now: [String: Int], most: [String: Int], done: Int)>(([:], [:], 0))

        func begin(_ instance: String) {
            state.withLock { s in
                s.now[instance, default: 0] += 1
                s.most[instance] = max(s.most[instance] ?? 0, s.now[instance]!)
            }
        }

        func end(_ instance: String) { state.withLock { $0.now[instance, default: 0] -= 1; $0.done += 1 } }
        var most: [String: Int] { state.withLock { $0.most } }
        var done: Int { state.withLock { $0.done } }
        func reset() { state.withLock { $0.most = [:] } }
    }

    struct Empty: Codable, Sendable {}

    static func configure(_ configuration: inout JobsConfiguration) {
        configuration.workersEnabled = true
        configuration.queues = ["default": 4]
        configuration.pollInterval = 0.05
        configuration.prefetch = 0
    }

    static func register(_ runtime: JobsRuntime, as instance: String, overlap: Overlap) {
        runtime.registry.register(kind: "test.hold", args: Empty.self) { _, _ in
            overlap.begin(instance)
            try? await Task.sleep(for: .milliseconds(150))
            overlap.end(instance)
            return .complete
        }
    }

    static func queue(_ reply: HTTPReply, _ name: String) -> [String: Any]? {
        JobsAdminRoutesTests.items(reply).first { $0["name"] as? String == name }
    }

    @Test(arguments: TestBackend.all) func concurrencyChangesLiveOnEveryInstance(_ backend: TestBackend) async throws {
        let first = try await JobsRoutesHarness.make(backend, configure: Self.configure)
        defer { first.cleanUp() }
        let (transactions, opened, close) = try first.backend.secondInstance(sqlite: [JobsSchema.self])
        var configuration = JobsConfiguration()
        Self.configure(&configuration)
        let second = JobsRuntime(transactions: transactions, stores: .on(opened), clock: first.clock, configuration: configuration)
        let overlap = Overlap()
        Self.register(first.module.runtime, as: "a", overlap: overlap)
        Self.register(second, as: "b", overlap: overlap)
        let poolA = first.module.runtime.pool, poolB = second.pool
        let runA = Task { try await poolA.run() }
        let runB = Task { try await poolB.run() }
        let admin = try await first.account("admin1", role: .admin)

        try await first.withRouter { client async throws in
            #expect(await eventually(seconds: 10) { poolA.concurrency(of: "default") == 4 && poolB.concurrency(of: "default") == 4 })

            // Both instances show up, alive, with what they run.
            #expect(try await eventually(seconds: 10) {
                JobsAdminRoutesTests.items(try await client.json(.get, "/v1/admin/instances", token: admin)).count == 2
            })
            let instances = JobsAdminRoutesTests.items(try await client.json(.get, "/v1/admin/instances", token: admin))
            #expect(Set(instances.compactMap { $0["id"] as? String }) == [poolA.workerID, poolB.workerID])
            for instance in instances {
                #expect(instance["state"] as? String == "alive")
                #expect(instance["pid"] as? Int == Int(ProcessInfo.processInfo.processIdentifier))
                #expect(instance["version"] as? String == BuildInfo.version)
                for key in ["host", "startedAt", "lastHeartbeatAt", "running", "queues"] { #expect(instance[key] != nil, "\(key)") }
                #expect(((instance["queues"] as? [String: Any])?["default"] as? [String: Any])?["concurrency"] as? Int == 4)
            }

            // Down to 1: both instances follow within about a second, and run one job at a time each.
            let patched = try await client.json(.patch, "/v1/admin/queues/default", body: #"{"concurrency":1}"#, token: admin)
            #expect(patched.status == .ok, "\(patched.body)")
            #expect(patched.object["concurrency"] as? Int == 1 && patched.object["limit"] as? Int == 1)
            // Each pool reads the setting every second; how soon it shows is the machine's
            // speed, so the test waits for it rather than timing it.
            #expect(await eventually(seconds: 20) { poolA.concurrency(of: "default") == 1 && poolB.concurrency(of: "default") == 1 })
            // Jobs already running may finish; the next ones respect the new limit.
            try await Task.sleep(for: .milliseconds(300))
            overlap.reset()
            for _ in 0..<8 {
                _ = try await first.module.runtime.service.enqueue(try NewJob(kind: "test.hold", args: Empty()))
            }
            #expect(await eventually(seconds: 30) { overlap.done == 8 })
            #expect(overlap.most.values.allSatisfy { $0 <= 1 }, "\(overlap.most)")

            // The queue view shows the setting and each instance's share.
            #expect(try await eventually(seconds: 10) {
                let queue = Self.queue(try await client.json(.get, "/v1/admin/queues", token: admin), "default")
                let shares = queue?["instances"] as? [[String: Any]] ?? []
                return queue?["concurrency"] as? Int == 1 && shares.count == 2 && shares.allSatisfy { $0["concurrency"] as? Int == 1 }
            })

            // Up to 3, then back to each instance's configured number.
            #expect(try await client.json(.patch, "/v1/admin/queues/default", body: #"{"concurrency":3}"#, token: admin).status == .ok)
            #expect(await eventually(seconds: 10) { poolA.concurrency(of: "default") == 3 && poolB.concurrency(of: "default") == 3 })
            let reset = try await client.json(.patch, "/v1/admin/queues/default", body: #"{"concurrency":null}"#, token: admin)
            #expect(reset.status == .ok && reset.object["concurrency"] is NSNull, "\(reset.body)")
            #expect(await eventually(seconds: 10) { poolA.concurrency(of: "default") == 4 && poolB.concurrency(of: "default") == 4 })

            // Refused: out of range (422), malformed (400), unknown queue (404).
            for body in [#"{"concurrency":0}"#, #"{"concurrency":257}"#] {
                let reply = try await client.json(.patch, "/v1/admin/queues/default", body: body, token: admin)
                #expect(reply.status == .unprocessableContent, "\(body): \(reply.body)")
                #expect(reply.headers[.contentType]?.hasPrefix("application/problem+json") == true)
            }
            for body in [#"{}"#, #"{"concurrency":"many"}"#, #"[1]"#, "not json"] {
                #expect(try await client.json(.patch, "/v1/admin/queues/default", body: body, token: admin).status == .badRequest, "\(body)")
            }
            let fraction = try await client.json(.patch, "/v1/admin/queues/default", body: #"{"concurrency":1.5}"#, token: admin)
            #expect([.badRequest, .unprocessableContent].contains(fraction.status), "\(fraction.status)")
            #expect(try await client.json(.patch, "/v1/admin/queues/nowhere", body: #"{"concurrency":2}"#, token: admin).status == .notFound)
            let student = try await first.account("student1", role: .student)
            #expect(try await client.json(.patch, "/v1/admin/queues/default", body: #"{"concurrency":2}"#, token: student).status == .forbidden)
            #expect(try await client.json(.get, "/v1/admin/instances", token: student).status == .forbidden)
        }
        poolA.shutdown(timeout: 1)
        poolB.shutdown(timeout: 1)
        try await runA.value
        try await runB.value
        // A pool that stopped cleanly leaves the list at once.
        #expect(try await first.module.runtime.service.instances().isEmpty)
        await close()
    }

    @Test(arguments: TestBackend.all) func anInstanceWithoutAHeartbeatIsListedAsGoneThenPruned(_ backend: TestBackend) async throws {
        let gateway = try await JobsRoutesHarness.make(backend, configure: Self.configure)
        defer { gateway.cleanUp() }
        let pool = gateway.module.runtime.pool
        let admin = try await gateway.account("admin1", role: .admin)
        try await gateway.withRouter { client async throws in
            // One round of chores writes the heartbeat (the pool is not running: no queues in it).
            await pool.runMaintenance()
            var listed = JobsAdminRoutesTests.items(try await client.json(.get, "/v1/admin/instances", token: admin))
            #expect(listed.count == 1 && listed.first?["state"] as? String == "alive" && listed.first?["id"] as? String == pool.workerID)
            // Silent for longer than `instanceGoneAfter`: listed as gone.
            gateway.clock.advance(by: 31)
            listed = JobsAdminRoutesTests.items(try await client.json(.get, "/v1/admin/instances", token: admin))
            #expect(listed.count == 1 && listed.first?["state"] as? String == "gone", "\(listed)")
            // Another instance's heartbeat an hour later prunes the row.
            let (transactions, opened, close) = try gateway.backend.secondInstance(sqlite: [JobsSchema.self])
            var configuration = JobsConfiguration()
            Self.configure(&configuration)
            let other = JobsRuntime(transactions: transactions, stores: .on(opened), clock: gateway.clock, configuration: configuration)
            gateway.clock.advance(by: 3600)
            await other.pool.runMaintenance()
            listed = JobsAdminRoutesTests.items(try await client.json(.get, "/v1/admin/instances", token: admin))
            #expect(listed.compactMap { $0["id"] as? String } == [other.pool.workerID], "\(listed)")
            await close()
        }
    }
}
