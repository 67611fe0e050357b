import Foundation
import GradebookTestSupport
import GatewayApp
import GatewayCore
import HTTPTypes
import HTTPClient
import Push
import TestSupport
import Testing

/// The fault drill's probes: `/healthz` and a catalog page, one after the other, timed.
struct FaultDrillProber: Sendable {
    let client: CurlHTTPClient
    let base: String

    /// What the probes measured in a phase; `failures` lists any status other than 200.
    struct Probes: Sendable {
        var health: [Double] = []
        var catalog: [Double] = []
        var failures: [Int] = []
    }

    /// One GET, its status (-1 for a transport failure) and how long it took in ms.
    func get(_ path: String, basic: Bool = false) async -> (status: Int, ms: Double) {
        let started = ContinuousClock.now
        let request = OutboundRequest(
            method: .get, url: URL(string: base + path)!,
            basicCredentials: basic ? BasicCredentials(username: "test", password: UpstreamSimulator.password) : nil
        )
        let status = (try? await client.execute(request))?.status ?? -1
        let elapsed = ContinuousClock.now - started
        return (status, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }

    /// A request with a JSON body (or none) as a bearer of `token`: its status and JSON object.
    /// (The drill's requests go through this client: the test client's one connection would
    /// sit idle through the phases, and the server closes idle connections.)
    func json(_ method: HTTPMethod, _ path: String, body: String? = nil, token: String) async throws -> (status: Int, object: [String: Any]) {
        var headers: HTTPHeaderFields = [:]
        headers.add(name: "Authorization", value: "Bearer \(token)")
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        let reply = try await client.execute(OutboundRequest(method: method, url: URL(string: base + path)!, headers: headers, body: body.map { Data($0.utf8) }))
        return (reply.status, (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:])
    }

    /// Probes for `seconds` while `beside` other clients run `work` over and over; returns the
    /// probes and every result of `work`.
    func probe(seconds: Double, beside clients: Int = 0, _ work: @escaping @Sendable () async -> Int = { 0 }) async -> (probes: Probes, results: [Int]) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        return await withTaskGroup(of: (Probes, [Int]).self) { group in
            for _ in 0..<clients {
                group.addTask {
                    var results: [Int] = []
                    while ContinuousClock.now < deadline { results.append(await work()) }
                    return (Probes(), results)
                }
            }
            group.addTask {
                var probes = Probes()
                while ContinuousClock.now < deadline {
                    let health = await get("/healthz"), page = await get("/v1/registration/classes?limit=20")
                    probes.health.append(health.ms)
                    probes.catalog.append(page.ms)
                    probes.failures += [health.status, page.status].filter { $0 != 200 }
                }
                return (probes, [])
            }
            var all = (Probes(), [Int]())
            for await (probes, results) in group {
                all.0.health += probes.health
                all.0.catalog += probes.catalog
                all.0.failures += probes.failures
                all.1 += results
            }
            return all
        }
    }
}

extension UpstreamFaultDrillSlowTests {
    /// The faults every push peer shows in turn (APNs skips `refusal`: see ``FaultyLink``).
    static let pushFaults: [FaultyLink.Fault] = [.hang, .reset, .garbled, .refusal]
    /// Notifications queued to each channel in each fault.
    static let notificationsPerFault = 2

    /// The push phases: a line per fault for the drill's report.
    static func pushPhases(
        _ gateway: TestGateway, _ peers: PushFaultPeers, _ prober: FaultDrillProber,
        _ baseline: (health: Double, catalog: Double)
    ) async throws -> [String] {
        var lines: [String] = []
        let devices = try await peers.registerDevices(gateway, prober)
        // The channels with a stand-in behind their link (APNs has none: it only fails).
        let delivering = devices.filter { $0.key != "apns" }
        @Sendable func notify(_ key: String, _ channels: [String: Int64]) async throws {
            for (channel, id) in channels {
                let note = OutgoingNotification(id: key, category: "seat.open", title: "Seat open", body: "CS 101 has a seat", urgent: true)
                #expect(try await gateway.app.outbox.notify(deviceID: id, uniqueKey: key, note), "\(channel) \(key) queued")
            }
        }
        @Sendable func states(_ prefix: String, _ channels: [String: Int64]) async -> [String: [StoredNotification]] {
            (try? await peers.notifications(gateway, channels, prefix: prefix)) ?? [:]
        }

        try await notify("healthy", delivering)
        let healthy = await eventually(seconds: 30) {
            await states("healthy", delivering).values.allSatisfy { $0.count == 1 && $0[0].state == .delivered }
        }
        let healthyStates = await states("healthy", delivering)
        #expect(healthy, "through healthy links, webhook, Web Push and email deliver: \(healthyStates)")

        for fault in pushFaults {
            peers.set(fault)
            let channels = devices.filter { channel, _ in peers.links.contains { $0.channel == channel && $0.link.supports(fault) } }
            for n in 0..<notificationsPerFault { try await notify("\(fault.rawValue)-\(n)", channels) }
            let probes = await prober.probe(seconds: phaseSeconds).probes
            var line = compare("every push peer \(fault.rawValue == "refusal" ? "refusing (500, 421)" : fault.rawValue)", probes, to: baseline)
            let queued = await states("\(fault.rawValue)-", channels)
            for (channel, list) in queued.sorted(by: { $0.key < $1.key }) {
                #expect(list.count == notificationsPerFault, "\(fault) \(channel): \(list.count) queued")
                #expect(!list.contains { $0.state == .delivered }, "\(fault) \(channel): nothing is delivered")
                if fault != .hang {
                    // Failed at once, each kept for another attempt.
                    #expect(
                        list.allSatisfy { $0.state == .pending && $0.attempts >= 1 && $0.lastError != nil },
                        "\(fault) \(channel): \(list.map { "\($0.state) after \($0.attempts): \($0.lastError ?? "no error")" })"
                    )
                }
            }
            if fault == .hang { line += ", \(peers.links.map(\.link.heldConnections).reduce(0, +)) connections held" }
            lines.append(line)
        }
        peers.set(.none)

        // What the hang held failed once the peers gave up (at the next fault), and every failed
        // delivery waits for a later attempt: its job is retryable, due after its last attempt.
        let failedKeys = pushFaults.map { "\($0.rawValue)-" }
        let settled = await eventually(seconds: 30) {
            var all: [StoredNotification] = []
            for prefix in failedKeys { all += await states(prefix, devices).values.joined() }
            return all.allSatisfy { $0.state == .pending && $0.attempts >= 1 }
        }
        let held = await states("hang-", devices)
        #expect(settled, "every delivery in a fault failed and waits (what the hang held: \(held))")
        var failed: [StoredNotification] = []
        for prefix in failedKeys { failed += await states(prefix, devices).values.joined() }
        let admin = try await gateway.account("drill-admin", role: .admin)
        let listed = try await prober.json(.get, "/v1/admin/jobs?kind=push.deliver&limit=200", token: admin)
        #expect(listed.status == 200)
        let jobs = ((listed.object["items"] as? [[String: Any]]) ?? []).filter { job in
            let id = ((job["args"] as? [String: Any])?["notificationId"] as? NSNumber)?.int64Value
            return failed.contains { $0.id == id }
        }
        #expect(jobs.count == failed.count, "a job for every failed delivery: \(jobs.count) of \(failed.count)")
        for job in jobs {
            let scheduled = (job["scheduledAt"] as? String).flatMap(Self.date), attempted = (job["attemptedAt"] as? String).flatMap(Self.date)
            #expect(job["state"] as? String == "retryable", "\(job)")
            #expect(scheduled != nil && attempted != nil && scheduled! > attempted!, "backs off: due \(scheduled as Any) after \(attempted as Any)")
        }

        // As time passes the retries come due (and so do deliveries snoozed while their host's
        // slots were taken): everything queued to a channel with a peer arrives, once.
        var arrived = false
        for _ in 0..<120 where !arrived {
            gateway.clock.advance(by: 10)
            try await Task.sleep(for: .milliseconds(500))
            arrived = await states("", delivering).values.allSatisfy { $0.allSatisfy { $0.state == .delivered } }
        }
        let finalStates = await states("", delivering).mapValues { $0.map(\.state) }
        #expect(arrived, "after the faults every notification is delivered: \(finalStates)")
        let expected = 1 + pushFaults.count * notificationsPerFault
        let hooks = peers.receiver.requests.filter { $0.requestLine.contains(" /hook ") }
        #expect(hooks.count == expected, "webhook deliveries: \(hooks.count), expected \(expected)")
        #expect(Set(hooks.compactMap { $0.headers["webhook-id"] }).count == expected, "each webhook-id once")
        #expect(peers.receiver.requests.filter { $0.requestLine.contains(" /push ") }.count == expected, "Web Push deliveries")
        #expect(peers.smtp.messages().count == 1 + expected, "mails: the confirmation and \(expected) notifications")
        lines.append(
            "push recovery: \(failed.count) failed deliveries backed off (retryable, due after their attempt); "
                + "then \(expected) webhook, \(expected) Web Push and \(expected) email deliveries, each once"
        )
        return lines
    }

    /// An RFC 3339 time as the admin API writes it, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
