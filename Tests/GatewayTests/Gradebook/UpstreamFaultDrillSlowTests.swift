import Catalog
import Foundation
import GatewayApp
import GatewayCore
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import Jobs
import Push
import Registration
import TestSupport
import Testing

/// The upstream fault drill (`make check-slow`): while four clients keep asking the gateway for
/// gradebook records through the compatibility route, the gradebook simulator (a separate
/// HTTPS process) turns slow, answers 500 or 401, sends truncated JSON, or drops connections.
/// The clients get the documented answers, and nothing else slows down: `/healthz` and a
/// catalog page, probed the whole time, keep their p99 within 2x of the no-fault phase of the
/// same run. Last, a student's webhook that never answers takes a flood of deliveries from the
/// job workers, with the same bound. (How each push channel answers its own failures, APNs,
/// Web Push, webhooks and SMTP, is tested per channel: `APNsChannelTests`, `WebPushTests`,
/// `UserEndpointTests`, `SMTPTests`.)
///
/// A p99 of a millisecond moves by a millisecond on a busy machine, so each ratio is taken
/// against the baseline or 10 ms, whichever is larger: the drill catches a stall (a thread or a
/// connection pool held by a slow upstream), not scheduler noise.
@Suite("Upstream fault drill Slow: the rest of the gateway keeps its pace", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["GATEWAY_SLOW_TESTS"] == "1"))
struct UpstreamFaultDrillSlowTests {
    static let phaseSeconds = 8.0
    static let floorMs = 10.0

    struct Phase {
        let name: String
        let fault: String?
        /// The statuses the gradebook clients may get in this phase.
        let expected: Set<Int>
    }

    static let phases: [Phase] = [
        Phase(name: "no fault", fault: nil, expected: [200]),
        // Slower than the gateway's 2 s upstream timeout: 504, never a hung client.
        Phase(name: "slow (3 s)", fault: #"{"mode": "slow", "delayMs": 3000}"#, expected: [200, 503, 504]),
        Phase(name: "500", fault: #"{"mode": "error500"}"#, expected: [500, 502]),
        Phase(name: "truncated JSON", fault: #"{"mode": "truncated"}"#, expected: [502]),
        Phase(name: "connection reset", fault: #"{"mode": "reset"}"#, expected: [502]),
        // Refused credentials are wrong guesses: the upstream sign-in throttle answers 429 soon,
        // and goes on answering it for its window, so this phase comes last.
        Phase(name: "401", fault: #"{"mode": "unauthorized"}"#, expected: [401, 429]),
    ]

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    static func p99(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .infinity }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    }

    @Test func healthAndCatalogKeepTheirP99WhileTheUpstreamMisbehaves() async throws {
        let rig = try await GradebookUpstreamTests.Rig(timeoutSeconds: 2) { $0.allowInsecurePushEndpoints = true }
        let hanging = try LoopbackReceiver(host: "127.0.0.1", behaviour: .silent, lifetime: .seconds(300))
        defer { hanging.stop() }
        defer { rig.stop() }
        try await rig.gateway.app.registration.admin.seedDemoCatalogIfEmpty(size: .fixtures)
        let client = CurlHTTPClient(configuration: .init(defaultTimeout: .seconds(30), allowedDestinations: .loopback))
        defer { client.shutdown() }
        try await rig.gateway.withLiveServer { live async throws in
            let port = try #require(live.port)
            let base = "http://127.0.0.1:\(port)"
            func get(_ path: String, basic: Bool = false) async -> (status: Int, ms: Double) {
                let started = ContinuousClock.now
                let request = OutboundRequest(
                    method: .get, url: URL(string: base + path)!,
                    basicCredentials: basic ? BasicCredentials(username: "test", password: GradebookUpstreamTests.password) : nil
                )
                let status = (try? await client.execute(request))?.status ?? -1
                let elapsed = ContinuousClock.now - started
                return (status, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }

            var baseline: (health: Double, catalog: Double)?
            var lines: [String] = []
            for phase in Self.phases {
                if let fault = phase.fault { try await rig.fault(fault) } else { try await rig.fault(#"{"mode": "none"}"#) }
                let deadline = ContinuousClock.now + .seconds(Self.phaseSeconds)
                // Four gradebook clients (the cache bypassed, so every request goes upstream)
                // and one prober, all until the phase ends.
                let (health, catalog, statuses) = await withTaskGroup(of: ([Double], [Double], [Int]).self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var seen: [Int] = []
                            while ContinuousClock.now < deadline {
                                seen.append(await get("/gradebook/7/grades.json?record=sections&refresh=1", basic: true).status)
                            }
                            return ([], [], seen)
                        }
                    }
                    group.addTask {
                        var health: [Double] = [], catalog: [Double] = [], seen: [Int] = []
                        while ContinuousClock.now < deadline {
                            let probe = await get("/healthz")
                            health.append(probe.ms)
                            seen.append(probe.status == 200 ? 0 : probe.status)
                            let page = await get("/v1/registration/classes?limit=20")
                            catalog.append(page.ms)
                            seen.append(page.status == 200 ? 0 : page.status)
                        }
                        return (health, catalog, seen)
                    }
                    var all: ([Double], [Double], [Int]) = ([], [], [])
                    for await part in group { all.0 += part.0; all.1 += part.1; all.2 += part.2 }
                    return all
                }
                let probes = statuses.filter { $0 == 0 }.count
                let upstream = statuses.filter { $0 != 0 }
                #expect(probes == health.count + catalog.count, "\(phase.name): every probe answered 200 (\(Set(statuses)))")
                let unexpected = Set(upstream).subtracting(phase.expected)
                #expect(unexpected.isEmpty, "\(phase.name): gradebook answers \(unexpected) outside \(phase.expected.sorted())")
                #expect(!upstream.isEmpty, "\(phase.name): the gradebook clients were answered")
                let healthP99 = Self.p99(health), catalogP99 = Self.p99(catalog)
                if let baseline {
                    let healthRatio = healthP99 / max(baseline.health, Self.floorMs)
                    let catalogRatio = catalogP99 / max(baseline.catalog, Self.floorMs)
                    lines.append(
                        "\(phase.name): healthz p99 \(Self.rounded(healthP99)) ms (x\(Self.rounded(healthRatio))), "
                            + "catalog p99 \(Self.rounded(catalogP99)) ms (x\(Self.rounded(catalogRatio))), \(upstream.count) gradebook answers"
                    )
                    #expect(healthRatio <= 2, "\(phase.name): /healthz p99 \(healthP99) ms against \(baseline.health) ms")
                    #expect(catalogRatio <= 2, "\(phase.name): catalog p99 \(catalogP99) ms against \(baseline.catalog) ms")
                } else {
                    baseline = (healthP99, catalogP99)
                    lines.append(
                        "no fault: healthz p99 \(Self.rounded(healthP99)) ms, catalog p99 \(Self.rounded(catalogP99)) ms, \(upstream.count) gradebook answers"
                    )
                }
            }
            // Push: a student's webhook that never answers, flooded with 60 deliveries that the
            // job workers take on while the probes run.
            let student = try await rig.gateway.account("flooded", role: .student)
            let device = try await live.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(hanging.url())"}"#, token: student)
            let deviceID = try UserEndpointTests.deviceID(device)
            for n in 0..<60 {
                let note = OutgoingNotification(id: "drill-\(n)", category: "seat.open", title: "Seat open", body: "Hurry", urgent: true)
                #expect(try await rig.gateway.app.push.notify(deviceID: Int64(deviceID), uniqueKey: "drill-\(n)", note))
            }
            let pool = rig.gateway.app.jobs.pool
            let workers = Task { try await pool.run() }
            defer { workers.cancel() }
            #expect(await eventually(seconds: 10) { hanging.acceptedConnections >= 1 }, "the deliveries reached the hanging webhook")
            let deadline = ContinuousClock.now + .seconds(Self.phaseSeconds)
            var health: [Double] = [], catalog: [Double] = []
            while ContinuousClock.now < deadline {
                let probe = await get("/healthz"), page = await get("/v1/registration/classes?limit=20")
                #expect(probe.status == 200 && page.status == 200, "probes during the webhook flood: \(probe.status) \(page.status)")
                health.append(probe.ms)
                catalog.append(page.ms)
            }
            if let baseline {
                let healthRatio = Self.p99(health) / max(baseline.health, Self.floorMs)
                let catalogRatio = Self.p99(catalog) / max(baseline.catalog, Self.floorMs)
                lines.append(
                    "webhook that never answers: healthz p99 \(Self.rounded(Self.p99(health))) ms (x\(Self.rounded(healthRatio))), "
                        + "catalog p99 \(Self.rounded(Self.p99(catalog))) ms (x\(Self.rounded(catalogRatio))), \(hanging.acceptedConnections) connections held"
                )
                #expect(healthRatio <= 2, "webhook flood: /healthz p99 \(Self.p99(health)) ms against \(baseline.health) ms")
                #expect(catalogRatio <= 2, "webhook flood: catalog p99 \(Self.p99(catalog)) ms against \(baseline.catalog) ms")
            }
            #expect(hanging.acceptedConnections <= 2, "at most 2 deliveries in flight to one host: \(hanging.acceptedConnections)")

            try await rig.fault(#"{"mode": "none"}"#)
            // After the faults, the upstream serves again through the gateway.
            let recovered = await get("/gradebook/7/grades.json?record=sections&refresh=1", basic: true)
            #expect(recovered.status == 200 || recovered.status == 429, "after the faults: \(recovered.status)")
            print("upstream fault drill:\n  " + lines.joined(separator: "\n  "))
        }
    }
}
