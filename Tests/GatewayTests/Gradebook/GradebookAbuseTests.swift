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

    static func gateway() throws -> (GatewayApplication, URL) {
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
        return (try GatewayApplication(configuration: config, clock: ManualClock(Date())), directory)
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

    @Test func wrongPasswordsStopReachingTheUpstream() async throws {
        let (app, directory) = try Self.gateway()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.makeApplication().test(.live) { client async throws in
            let before = try await Self.upstreamRequests(client)
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            var fifthAt: ContinuousClock.Instant?
            var withinDelay = 0
            var v1Checked = false
            for n in 0..<40 {
                // The fifth failure is recorded somewhere between this request's start and its
                // answer, so its delay runs at least 15 s from the start: timing from the answer
                // would overrate the window on a loaded machine.
                if n == 4 { fifthAt = .now }
                let (status, retry) = try await Self.get(client, "/gradebook/1/auth.txt", Self.basic("jdoe", "guess-\(n)"), from: "203.0.113.7")
                statuses.append(status)
                if status == .tooManyRequests { retryAfter = retry }
                if n == 5, let fifthAt, ContinuousClock.now - fifthAt < .seconds(14) {
                    // Within the first delay, the v1 route shares the throttle.
                    let v1 = try await Self.get(client, "/v1/gradebook/1/sections", Self.basic("jdoe", "guess-0"), from: "203.0.113.7")
                    #expect(v1.0 == .tooManyRequests, "the v1 route shares the throttle")
                    v1Checked = true
                }
                // The throttle's first delay is 15 s of real time: a loaded machine may take longer
                // for these requests, and then one more guess is rightly let through.
                if let fifthAt, ContinuousClock.now - fifthAt < .seconds(14) { withinDelay = n + 1 }
            }
            #expect(statuses.prefix(5).allSatisfy { $0 == .unauthorized }, "\(statuses)")
            #expect(statuses.prefix(withinDelay).dropFirst(5).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
            let checked = statuses.filter { $0 == .unauthorized }.count
            #expect(withinDelay < 40 || checked == 5, "\(statuses)")
            #expect(try await Self.upstreamRequests(client) - before == checked, "only the guesses let through reached the upstream")

            // The same username from other addresses: each may try, until the username's own
            // limit over all addresses; grades.json and the v1 routes count alike.
            let (fromElsewhere, _) = try await Self.get(client, "/gradebook/1/grades.json?record=sections", Self.basic("jdoe", "another"), from: "198.51.100.1")
            #expect(fromElsewhere == .unauthorized)
            #expect(v1Checked || withinDelay <= 5, "the v1 route was tried within the delay")
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
            #expect(try await QuickHACTests.post(client, "/ios/register", "uuid=\(uuid)").0 == .ok)
            let before = try await Self.upstreamRequests(client)
            var codes: [Int] = []
            for n in 0..<12 {
                let (status, body) = try await QuickHACTests.post(client, "/ios/account_add", "uuid=\(uuid)&user=jdoe&pass=guess-\(n)&district=1")
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
        let ada = try await app.auth.createAccount(username: "ada", email: nil, password: "correct horse battery", role: .student)
        let token = try await app.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
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
