import Foundation
import Push
import Testing

/// The APNs channel against the h2 stand-in: signatures, headers, answers, multiplexing.
@Suite("APNs channel (h2 stand-in)")
struct APNsChannelTests {
    static let address = DeviceAddress.apns(token: APNsFixtures.deviceToken(), environment: .sandbox, topic: APNsStandIn.topic)

    @Test func standInVerifiesTheJWTAndHeaders() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(token)
        defer { channel.shutdown() }

        let id = UUID().uuidString
        var notification = APNsFixtures.notification(id: id)
        notification.collapseID = "grade-123"
        notification.expiresAt = Date().addingTimeInterval(3600)
        let result = await channel.send(notification, deviceToken: APNsFixtures.deviceToken(), environment: .sandbox, topic: APNsStandIn.topic)
        #expect(result.outcome == .delivered(status: 200))
        #expect(result.response?.apnsID == id.lowercased())

        let record = try #require(try standIn.records().first)
        #expect(record.status == 200 && record.reason == nil)
        #expect(record.path == "/3/device/" + APNsFixtures.deviceToken())
        #expect(record.claims?["iss"] as? String == APNsStandIn.teamID)
        #expect(record.headers[":method"] == "POST")
        #expect(record.headers["apns-topic"] == APNsStandIn.topic)
        #expect(record.headers["apns-push-type"] == "alert")
        #expect(record.headers["apns-priority"] == "10")
        #expect(record.headers["apns-collapse-id"] == "grade-123")
        #expect(record.headers["apns-expiration"] == String(Int64(notification.expiresAt!.timeIntervalSince1970.rounded(.up))))
        #expect(record.headers["apns-id"] == id.lowercased())
        #expect(record.headers["content-type"] == "application/json")
        let aps = try #require(record.payload?["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "New grade", "body": "Your CMSC 131 grade was posted."])
        #expect(aps["sound"] as? String == "default")
        #expect(aps["thread-id"] as? String == "grade.new")
        #expect(record.payload?["data"] as? [String: String] == ["class": "123"])
    }

    @Test func aTokenSignedWithAnotherKeyIsRefusedByTheStandIn() async throws {
        let token = try APNsFixtures.providerToken()
        let other = try APNsProviderToken(
            p8PEM: try Self.otherKeyPEM(), teamID: APNsStandIn.teamID, keyID: APNsStandIn.keyID, now: { Date() })
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(other)
        defer { channel.shutdown() }
        let outcome = await channel.deliver(APNsFixtures.notification(), to: Self.address)
        #expect(outcome == .discarded(reason: "403 InvalidProviderToken"))
    }

    @Test func everyAnswerMapsToItsOutcome() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER, unregisteredAt: 1_700_000_000_123, retryAfter: 7)
        let channel = standIn.channel(token)
        defer { channel.shutdown() }
        func deliver(_ prefix: String, topic: String = APNsStandIn.topic) async -> DeliveryOutcome {
            await channel.deliver(APNsFixtures.notification(), to: .apns(token: APNsFixtures.deviceToken(prefix), environment: .production, topic: topic))
        }
        #expect(await deliver("a1") == .delivered(status: 200))
        #expect(await deliver("410") == .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000.123), reason: "Unregistered"))
        #expect(await deliver("badd") == .deactivate(reason: "BadDeviceToken"))
        #expect(await deliver("a1", topic: "edu.other.app") == .deactivate(reason: "DeviceTokenNotForTopic"))
        #expect(await deliver("4290") == .retry(after: .seconds(7), reason: "429 TooManyRequests"))
        #expect(await deliver("5030") == .retry(after: nil, reason: "503 ServiceUnavailable"))
        #expect(try standIn.records().map(\.status) == [200, 410, 400, 400, 429, 503])
    }

    @Test func providerTokenIsReusedAndRefreshedAcrossRequests() async throws {
        // Starts 30 minutes ago so both tokens are within the hour APNs (and the stand-in) accept.
        let clock = APNsTestClock(Date().addingTimeInterval(-30 * 60))
        let token = try APNsFixtures.providerToken(clock: clock)
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(token)
        defer { channel.shutdown() }
        for _ in 0..<3 { #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .delivered(status: 200)) }
        clock.advance(by: 39 * 60)
        #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .delivered(status: 200))
        clock.advance(by: 60)
        #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .delivered(status: 200))
        let records = try standIn.records()
        #expect(records.count == 5)
        #expect(Set(records.prefix(4).map(\.jwtHash)).count == 1)
        #expect(records[4].jwtHash != records[0].jwtHash)
        #expect(records.map { $0.claims?["iat"] as? Int } == [Int](repeating: Int(clock.now.timeIntervalSince1970) - 40 * 60, count: 4) + [Int(clock.now.timeIntervalSince1970)])
    }

    @Test func anExpiredProviderTokenIsRetriedWithANewOne() async throws {
        let clock = APNsTestClock(Date().addingTimeInterval(-2 * 3600))
        let token = try APNsFixtures.providerToken(clock: clock)
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(token)
        defer { channel.shutdown() }
        let stale = token.current()
        #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .retry(after: nil, reason: "403 ExpiredProviderToken"))
        #expect(token.issuedAt == nil)
        clock.advance(by: 2 * 3600)
        #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .delivered(status: 200))
        #expect(token.current() != stale)
    }

    @Test func fiftyConcurrentDeliveriesShareAtMostTwoConnections() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(token)
        defer { channel.shutdown() }
        let outcomes = await withTaskGroup(of: DeliveryOutcome.self, returning: [DeliveryOutcome].self) { group in
            for index in 0..<50 {
                group.addTask {
                    await channel.deliver(APNsFixtures.notification(), to: .apns(
                        token: APNsFixtures.deviceToken(index: index), environment: .sandbox, topic: APNsStandIn.topic))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes == [DeliveryOutcome](repeating: .delivered(status: 200), count: 50))
        let records = try standIn.records()
        #expect(records.count == 50)
        #expect(Set(records.map(\.connection)).count <= 2)
        #expect(channel.connectionsOpened <= 2)
    }

    @Test func aConnectionLimitQueuesStreamsOnOneConnection() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        // 10 streams on at most one connection: the other 190 wait in libcurl's queue.
        let channel = standIn.channel(token, maxConnectionsPerHost: 1, maxConcurrentStreams: 10)
        defer { channel.shutdown() }
        let report = await channel.measureThroughput(count: 200, deviceToken: APNsFixtures.deviceToken(), topic: APNsStandIn.topic)
        #expect(report.outcomes == ["delivered": 200])
        #expect(Set(try standIn.records().map(\.connection)).count == 1)
        #expect(report.connectionsOpened == 1)
    }

    @Test func streamsOverTheServersLimitAreRefusedAndRetried() async throws {
        let token = try APNsFixtures.providerToken()
        // The stand-in allows 5 streams per connection, as APNs may when busy, and refuses the
        // rest (REFUSED_STREAM) of the burst libcurl sends before it has seen that limit.
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER, maxStreams: 5)
        let channel = standIn.channel(token, maxConnectionsPerHost: 2)
        defer { channel.shutdown() }
        let report = await channel.measureThroughput(count: 100, deviceToken: APNsFixtures.deviceToken(), topic: APNsStandIn.topic)
        #expect(report.outcomes == ["delivered": 100])
        #expect(try standIn.records().count == 100)
    }

    @Test func cancelledDeliveriesEndAsRetries() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        // One stream at a time, so most of the 1,000 are still waiting when the task is cancelled.
        let channel = standIn.channel(token, maxConnectionsPerHost: 1, maxConcurrentStreams: 1)
        defer { channel.shutdown() }
        let task = Task { await channel.measureThroughput(count: 1000, deviceToken: APNsFixtures.deviceToken(), topic: APNsStandIn.topic) }
        // Cancelled once deliveries are under way.
        let deadline = ContinuousClock.now + .seconds(30)
        while try standIn.records().count < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        task.cancel()
        let report = await task.value
        #expect(report.outcomes.values.reduce(0, +) == 1000)
        #expect((report.outcomes["retry"] ?? 0) > 0)
        #expect(Set(report.outcomes.keys).isSubset(of: ["delivered", "retry"]))
        // The channel still works afterwards. The resets of a cancelled burst can end their
        // connection (the stand-in, like APNs, closes it on a stream-order protocol error), so a
        // delivery sent at that moment may end as a retry; the next one goes on a new connection.
        var after = await channel.deliver(APNsFixtures.notification(), to: Self.address)
        if case .retry = after { after = await channel.deliver(APNsFixtures.notification(), to: Self.address) }
        #expect(after == .delivered(status: 200), "\(after)")
    }

    @Test func oversizedPayloadsAndMalformedTokensAreRefusedBeforeSending() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(token)
        defer { channel.shutdown() }
        let huge = APNsFixtures.notification(body: String(repeating: "x", count: 5000))
        guard case .discarded(let reason) = await channel.deliver(huge, to: Self.address) else {
            Issue.record("an oversized payload was not discarded")
            return
        }
        #expect(reason.contains("exceeds 4096"))
        for bad in ["nothex", String(repeating: "z", count: 64), String(repeating: "a", count: 63)] {
            let outcome = await channel.deliver(APNsFixtures.notification(), to: .apns(token: bad, environment: .sandbox, topic: APNsStandIn.topic))
            guard case .deactivate(let reason) = outcome else {
                Issue.record("token \(bad) was not refused: \(outcome)")
                continue
            }
            #expect(reason.hasPrefix("invalid APNs device token"))
        }
        var expired = APNsFixtures.notification()
        expired.expiresAt = Date().addingTimeInterval(-1)
        #expect(await channel.deliver(expired, to: Self.address) == .discarded(reason: "expired before it was sent"))
        #expect(await channel.deliver(APNsFixtures.notification(), to: .log) == .discarded(reason: "not an APNs device address"))
        #expect(try standIn.records().isEmpty)
    }

    @Test func afterShutdownDeliveriesAreRetriedLater() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = standIn.channel(token)
        #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .delivered(status: 200))
        channel.shutdown()
        #expect(await channel.deliver(APNsFixtures.notification(), to: Self.address) == .retry(after: nil, reason: "the APNs connection pool is shut down"))
    }

    @Test func anUntrustedCertificateIsAConnectionFailure() async throws {
        let token = try APNsFixtures.providerToken()
        let standIn = try await APNsStandIn.started(publicKeyDER: token.publicKeyDER)
        let channel = APNsChannel(providerToken: token, configuration: .init(baseURL: standIn.baseURL))
        defer { channel.shutdown() }
        guard case .retry(nil, let reason) = await channel.deliver(APNsFixtures.notification(), to: Self.address) else {
            Issue.record("an untrusted certificate was accepted")
            return
        }
        #expect(reason.hasPrefix("curl error 60"))
        #expect(try standIn.records().isEmpty)
    }

    static func otherKeyPEM() throws -> String {
        let result = try APNsStandIn.run("/usr/bin/env", ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        return result.output
    }
}
