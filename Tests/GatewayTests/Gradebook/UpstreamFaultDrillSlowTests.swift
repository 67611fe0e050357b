import Catalog
import Foundation
import GradebookTestSupport
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
/// same run. Then a student's webhook that never answers takes a flood of deliveries, and last
/// every push channel's peer (webhook, Web Push, SMTP, APNs, each behind a ``FaultyLink``)
/// hangs, resets, garbles its answer and refuses, in turn, while notifications are queued to
/// it: nothing is delivered, every failed delivery waits for a later attempt (backoff), the
/// probes keep the same bound, and once the peers are well again every notification arrives
/// exactly once. (Each channel's own protocol answers, APNs's 410 or Web Push's 413 say, are
/// tested per channel: `APNsChannelTests`, `WebPushTests`, `UserEndpointTests`,
/// `SMTPMailerTests`.)
///
/// A p99 of a millisecond moves by a millisecond on a busy machine, so each ratio is taken
/// against the baseline or 10 ms, whichever is larger: the drill catches a stall (a thread or a
/// connection pool held by a slow upstream), not scheduler noise.
@Suite("Upstream fault drill Slow: the rest of the gateway keeps its pace", .serialized,
       .enabled(if: SlowSuites.enabled))
struct UpstreamFaultDrillSlowTests {
    // Not trimmed in CI: a p99 over a shorter phase is one stall away from the bound.
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
        // Slower than the gateway's 2 s upstream timeout: 504 (503 when the source's four
        // request slots are all waiting), never a hung client and never the slow answer.
        Phase(name: "slow (3 s)", fault: #"{"mode": "slow", "delayMs": 3000}"#, expected: [503, 504]),
        // The upstream's own 500 is a bad gateway here: the route never answers 500.
        Phase(name: "500", fault: #"{"mode": "error500"}"#, expected: [502]),
        Phase(name: "truncated JSON", fault: #"{"mode": "truncated"}"#, expected: [502]),
        Phase(name: "connection reset", fault: #"{"mode": "reset"}"#, expected: [502]),
        // After the faults, the upstream serves again through the gateway, every request.
        Phase(name: "recovered", fault: nil, expected: [200]),
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

    /// `name: healthz p99 … ms (x…), catalog p99 … ms (x…)` against the baseline, with the
    /// expectations that both ratios are within 2.
    static func compare(_ name: String, _ probes: FaultDrillProber.Probes, to baseline: (health: Double, catalog: Double)) -> String {
        let healthP99 = p99(probes.health), catalogP99 = p99(probes.catalog)
        let healthRatio = healthP99 / max(baseline.health, floorMs)
        let catalogRatio = catalogP99 / max(baseline.catalog, floorMs)
        #expect(probes.failures.isEmpty, "\(name): every probe answered 200 (\(probes.failures))")
        #expect(healthRatio <= 2, "\(name): /healthz p99 \(healthP99) ms against \(baseline.health) ms")
        #expect(catalogRatio <= 2, "\(name): catalog p99 \(catalogP99) ms against \(baseline.catalog) ms")
        // The bound's ratio (against the baseline or the floor), and the raw one beside it.
        let rawHealth = healthP99 / baseline.health, rawCatalog = catalogP99 / baseline.catalog
        return "\(name): healthz p99 \(rounded(healthP99)) ms (x\(rounded(healthRatio)); raw x\(rounded(rawHealth))), "
            + "catalog p99 \(rounded(catalogP99)) ms (x\(rounded(catalogRatio)); raw x\(rounded(rawCatalog)))"
    }

    @Test func healthAndCatalogKeepTheirP99WhileTheUpstreamMisbehaves() async throws {
        let peers = try await Drill.offThread { try PushFaultPeers() }
        defer { peers.stop() }
        let rig = try await GatewayUpstreamRig(timeoutSeconds: 2) { peers.configure(&$0) }
        let hanging = try LoopbackReceiver(host: "127.0.0.1", behaviour: .silent, lifetime: .seconds(300))
        defer { hanging.stop() }
        defer { rig.stop() }
        try await rig.gateway.app.registrationService.admin.seedDemoCatalogIfEmpty(size: .fixtures)
        let client = CurlHTTPClient(configuration: .init(defaultTimeout: .seconds(30), allowedDestinations: .loopback))
        defer { client.shutdown() }
        try await rig.gateway.withLiveServer { live async throws in
            let prober = FaultDrillProber(client: client, base: "http://127.0.0.1:\(try #require(live.port))")

            var baseline: (health: Double, catalog: Double)?
            var lines: [String] = []
            for phase in Self.phases {
                if let fault = phase.fault { try await rig.fault(fault) } else { try await rig.fault(#"{"mode": "none"}"#) }
                // Four gradebook clients (the cache bypassed, so every request goes upstream)
                // and the prober, all until the phase ends.
                let (probes, upstream) = await prober.probe(seconds: Self.phaseSeconds, beside: 4) {
                    await prober.get("/gradebook/7/grades.json?record=sections&refresh=1", basic: true).status
                }
                let unexpected = Set(upstream).subtracting(phase.expected)
                #expect(unexpected.isEmpty, "\(phase.name): gradebook answers \(unexpected) outside \(phase.expected.sorted())")
                #expect(!upstream.isEmpty, "\(phase.name): the gradebook clients were answered")
                if phase.name.hasPrefix("slow") {
                    #expect(upstream.contains(504), "slow: the 2 s upstream timeout answered 504 (\(Set(upstream)))")
                }
                if let baseline {
                    lines.append(Self.compare(phase.name, probes, to: baseline) + ", \(upstream.count) gradebook answers")
                } else {
                    #expect(probes.failures.isEmpty, "no fault: every probe answered 200 (\(probes.failures))")
                    baseline = (Self.p99(probes.health), Self.p99(probes.catalog))
                    lines.append(
                        "no fault: healthz p99 \(Self.rounded(Self.p99(probes.health))) ms, catalog p99 \(Self.rounded(Self.p99(probes.catalog))) ms, "
                            + "\(upstream.count) gradebook answers"
                    )
                }
            }
            #expect(baseline != nil)
            // The push phases have no gradebook clients beside the probes: their baseline is
            // the probes alone, measured here, so each push fault is held to a like-for-like
            // bound rather than to a phase that was busier.
            let quietProbes = await prober.probe(seconds: Self.phaseSeconds).probes
            #expect(quietProbes.failures.isEmpty, "probes alone: every probe answered 200 (\(quietProbes.failures))")
            let reference = (health: Self.p99(quietProbes.health), catalog: Self.p99(quietProbes.catalog))
            lines.append(
                "probes alone (the push phases' baseline): healthz p99 \(Self.rounded(reference.health)) ms, catalog p99 \(Self.rounded(reference.catalog)) ms"
            )

            // Push: a student's webhook that never answers, flooded with 60 deliveries that the
            // job workers take on while the probes run.
            let student = try await rig.gateway.account("flooded", role: .student)
            let device = try await prober.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(hanging.url())"}"#, token: student)
            let deviceID = try #require((device.object["device"] as? [String: Any])?["id"] as? Int, "\(device.status) \(device.object)")
            for n in 0..<60 {
                let note = OutgoingNotification(id: "drill-\(n)", category: "seat.open", title: "Seat open", body: "Hurry", urgent: true)
                #expect(try await rig.gateway.app.outbox.notify(deviceID: Int64(deviceID), uniqueKey: "drill-\(n)", note))
            }
            let pool = rig.gateway.app.jobsRuntime.pool
            let workers = Task { try await pool.run() }
            defer { workers.cancel() }
            #expect(await eventually(seconds: 10) { hanging.acceptedConnections >= 1 }, "the deliveries reached the hanging webhook")
            let flood = await prober.probe(seconds: Self.phaseSeconds).probes
            lines.append(Self.compare("webhook that never answers", flood, to: reference) + ", \(hanging.acceptedConnections) connections held")
            #expect(hanging.acceptedConnections <= 2, "at most 2 deliveries in flight to one host: \(hanging.acceptedConnections)")
            hanging.stop()

            // Every channel's peer fails in turn.
            lines += try await Self.pushPhases(rig.gateway, peers, prober, reference)
            print("upstream fault drill:\n  " + lines.joined(separator: "\n  "))
        }
    }
}
