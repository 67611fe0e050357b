import Auth
import Foundation
import GatewayApp
import GatewayCore
import HTTPClient
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TestSupport

/// Issue 20, Medium 1: the gradebook proxy is no password oracle, and strangers can't starve a
/// source. Against the demo's simulator in this process (source 1: 8 at once), with loopback as
/// a trusted proxy so that `X-Forwarded-For` stands for many client addresses.
@Suite("Gradebook proxy abuse limits", .serialized)
struct GradebookAbuseTests {
    static let adminToken = "gradebook-abuse-admin-token"
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    static func gateway(clock: ManualClock = ManualClock(Date())) throws -> (GatewayApplication, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        var config = GatewayConfiguration()
        config.databasePath = directory.appendingPathComponent("gateway.sqlite").path
        config.passwordHashing = .init(memoryKiB: 1024, iterations: 1, parallelism: 1)
        config.logLevel = .critical
        config.demo = true
        config.port = 0
        config.environment = [:]
        config.simulatorAdminToken = adminToken
        config.trustedProxies = AddressRange.loopback
        config.gradebookCacheSeconds = 0
        return (try GatewayApplication(configuration: config, clock: clock), directory)
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// How many requests the simulator has had.
    static func upstreamRequests(_ client: any TestClientProtocol) async throws -> Int {
        try await client.execute(uri: "/sim/gradebook/_admin/requests", method: .get, headers: [.authorization: "Bearer \(adminToken)"]) { response in
            (try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any])?["total"] as? Int ?? -1
        }
    }

    static func get(_ client: any TestClientProtocol, _ path: String, _ authorization: String, from address: String? = nil) async throws -> (HTTPResponse.Status, String?) {
        var headers: HTTPFields = [.authorization: authorization]
        if let address { headers[forwardedFor] = address }
        return try await client.execute(uri: path, method: .get, headers: headers) { ($0.status, $0.headers[.retryAfter]) }
    }

    /// The upstream sign-in throttle runs on the gateway's clock, which this test holds still
    /// and moves by hand: the exact number of guesses let through, and the exact Retry-After.
    @Test func wrongPasswordsStopReachingTheUpstream() async throws {
        let clock = ManualClock(Date())
        let (app, directory) = try Self.gateway(clock: clock)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.makeApplication().test(.live) { client async throws in
            let before = try await Self.upstreamRequests(client)
            @Sendable func guess(_ n: Int) async throws -> (HTTPResponse.Status, String?) {
                try await Self.get(client, "/gradebook/1/auth.txt", Self.basic("jdoe", "guess-\(n)"), from: "203.0.113.7")
            }
            // 40 guesses at one instant: five reach the upstream (wrong: 401); the other 35 are
            // refused here, each told to wait the whole first delay (15 s).
            var replies: [(HTTPResponse.Status, String?)] = []
            for n in 0..<40 { replies.append(try await guess(n)) }
            #expect(replies.prefix(5).allSatisfy { $0.0 == .unauthorized }, "\(replies)")
            #expect(replies.dropFirst(5).allSatisfy { $0.0 == .tooManyRequests && $0.1 == "15" }, "\(replies)")
            #expect(try await Self.upstreamRequests(client) - before == 5, "only the five guesses let through reached the upstream")
            // The v1 route shares the throttle.
            let v1 = try await Self.get(client, "/v1/gradebook/1/sections", Self.basic("jdoe", "guess-0"), from: "203.0.113.7")
            #expect(v1.0 == .tooManyRequests && v1.1 == "15", "the v1 route shares the throttle: \(v1)")

            // The delay counts down on the gateway's clock: a second before its end, one second
            // is left; at its end one guess (exactly one) gets through, and the next delay is
            // twice as long, then twice again.
            var allowed = 5
            for (n, delay) in [(40, 15), (43, 30), (46, 60)] {
                clock.advance(by: TimeInterval(delay - 1))
                let early = try await guess(n)
                #expect(early.0 == .tooManyRequests && early.1 == "1", "1 s before the end of the \(delay) s delay: \(early)")
                clock.advance(by: 1)
                let through = try await guess(n + 1)
                #expect(through.0 == .unauthorized, "at the end of the \(delay) s delay one guess is let through: \(through)")
                allowed += 1
                let next = try await guess(n + 2)
                #expect(next.0 == .tooManyRequests && next.1 == String(delay * 2), "then \(delay * 2) s: \(next)")
            }
            #expect(try await Self.upstreamRequests(client) - before == allowed, "\(allowed) guesses reached the upstream, no more")

            // The same username from another address may try (the username's own limit over all
            // addresses is 100); grades.json counts alike.
            let (fromElsewhere, _) = try await Self.get(client, "/gradebook/1/grades.json?record=sections", Self.basic("jdoe", "another"), from: "198.51.100.1")
            #expect(fromElsewhere == .unauthorized)
            // Another student at the throttled address signs in upstream as before.
            let (other, _) = try await Self.get(client, "/gradebook/1/auth.txt", Self.basic("asmith", "gradebook-test-1"), from: "203.0.113.7")
            #expect(other == .ok)
        }
    }

    @Test func quickHACAccountAddIsThrottledTheSameWay() async throws {
        let (app, directory) = try Self.gateway()
        defer { try? FileManager.default.removeItem(at: directory) }
        let uuid = "device-\(UUID().uuidString)"
        try await app.makeApplication().test(.live) { client async throws in
            #expect(try await client.quickHAC("/ios/register", "uuid=\(uuid)").0 == .ok)
            let before = try await Self.upstreamRequests(client)
            var codes: [Int] = []
            for n in 0..<12 {
                let (status, body) = try await client.quickHAC("/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=guess-\(n)&district=1")
                codes.append(status == .tooManyRequests ? 429 : (body["lastError"] as? Int ?? -1))
            }
            #expect(codes.prefix(5).allSatisfy { $0 == 7 }, "\(codes): refused by the upstream")
            #expect(codes.dropFirst(5).allSatisfy { $0 == 429 }, "\(codes): then throttled, in the protocol's form")
            #expect(try await Self.upstreamRequests(client) - before == 5)
        }
    }

    /// 40 strangers hold a slow upstream; a signed-in student reading a stored account still
    /// gets through (before: every slot was the strangers', and the student waited and got 503).
    @Test func strangersCanNotStarveASignedInStudent() async throws {
        let (app, directory) = try Self.gateway()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ada = try await app.accounts.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let token = try await app.accounts.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await app.makeApplication().test(.live) { client async throws in
            // Stored while the upstream is quick; then it slows down.
            let stored = try await client.json(
                .post, "/v1/me/gradebook-accounts", body: #"{"sourceId": 1, "username": "jdoe", "password": "gradebook-test-1"}"#, token: token
            )
            #expect(stored.status == .created)
            _ = ada
            let fault = try await client.execute(
                uri: "/sim/gradebook/_admin/faults", method: .put,
                headers: [.authorization: "Bearer \(Self.adminToken)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"mode": "slow", "delayMs": 3000}"#)
            ) { $0.status }
            #expect(fault == .ok)
            let before = try await Self.upstreamRequests(client)
            // Real concurrent connections (libcurl), each stranger from an address of its own.
            let port = try #require(client.port)
            let http = CurlHTTPClient(configuration: .init(defaultTimeout: .seconds(20), allowedDestinations: .loopback))
            defer { http.shutdown() }
            func get(_ path: String, _ headers: HTTPHeaderFields) async throws -> Int {
                try await http.execute(OutboundRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)\(path)")!, headers: headers)).status
            }
            let strangers = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for n in 0..<40 {
                        group.addTask {
                            try await get("/gradebook/1/grades.json?record=sections", [
                                "Authorization": Self.basic("user\(n)", "wrong"), "X-Forwarded-For": "203.0.113.\(n + 1)",
                            ])
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            // The strangers hold every slot anonymous callers may (half of source 1's 8): the
            // simulator has their requests, and sits on them for 3 s.
            let held = await eventually(seconds: 20) { ((try? await Self.upstreamRequests(client)) ?? 0) - before >= 4 }
            #expect(held, "the strangers reached the slow upstream")
            let student = try await get("/v1/gradebook/1/sections", ["Authorization": "Bearer \(token)"])
            #expect(student == 200, "the signed-in student's request found a slot")
            let statuses = try await strangers.value
            #expect(statuses.count == 40)
            #expect(statuses.contains(503), "strangers beyond their half were turned away: \(statuses)")
        }
    }
}
