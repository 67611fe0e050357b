import Crypto
import Foundation
import Push
import Testing

/// The provider token, the request builder and the response classifier, without a network.
@Suite("APNs model")
struct APNsModelTests {
    // MARK: - Provider token

    @Test func providerTokenIsAnES256JWTThatVerifies() throws {
        let clock = APNsTestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let token = try APNsFixtures.providerToken(clock: clock)
        let jwt = token.current()
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(try Self.json(parts[0]) == ["alg": "ES256", "kid": APNsStandIn.keyID] as NSDictionary)
        #expect(try Self.json(parts[1]) == ["iss": APNsStandIn.teamID, "iat": 1_700_000_000] as NSDictionary)
        let publicKey = try P256.Signing.PublicKey(derRepresentation: token.publicKeyDER)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Self.base64URL(parts[2])))
        #expect(publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }

    @Test func providerTokenIsReusedThenRefreshedAfterFortyMinutes() throws {
        let clock = APNsTestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let token = try APNsFixtures.providerToken(clock: clock)
        let first = token.current()
        clock.advance(by: 20 * 60)
        #expect(token.current() == first)
        clock.advance(by: 19 * 60 + 59)
        #expect(token.current() == first)
        clock.advance(by: 1)
        let second = token.current()
        #expect(second != first)
        #expect(token.issuedAt == clock.now)
        #expect(token.current() == second)
        // Invalidating an old token does nothing; invalidating the current one re-signs.
        token.invalidate(first)
        #expect(token.current() == second)
        token.invalidate(second)
        #expect(token.current() != second)
    }

    @Test func refreshIntervalStaysWithinTwentyToFiftyFiveMinutes() throws {
        let pem = try APNsFixtures.p8PEM
        #expect(try APNsProviderToken(p8PEM: pem, teamID: "TEAM123456", keyID: "KEY1234567", now: { Date() }).refreshInterval == 2400)
        #expect(try APNsProviderToken(p8PEM: pem, teamID: "TEAM123456", keyID: "KEY1234567", refreshInterval: 60, now: { Date() }).refreshInterval == 1200)
        #expect(try APNsProviderToken(p8PEM: pem, teamID: "TEAM123456", keyID: "KEY1234567", refreshInterval: 7200, now: { Date() }).refreshInterval == 3300)
    }

    @Test func unusableCredentialsAreRefused() throws {
        let pem = try APNsFixtures.p8PEM
        #expect(throws: APNsError.invalidSigningKey(reason: "not a PEM PKCS#8 P-256 private key")) {
            try APNsProviderToken(p8PEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", teamID: "TEAM123456", keyID: "KEY1234567", now: { Date() })
        }
        #expect(throws: APNsError.invalidTeamID) { try APNsProviderToken(p8PEM: pem, teamID: "TEAM", keyID: "KEY1234567", now: { Date() }) }
        #expect(throws: APNsError.invalidKeyID) { try APNsProviderToken(p8PEM: pem, teamID: "TEAM123456", keyID: "KEY-234567", now: { Date() }) }
        // A key made by swift-crypto (PKCS#8 PEM, as Apple's .p8 files are) works too.
        let generated = P256.Signing.PrivateKey().pemRepresentation
        #expect(generated.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try APNsProviderToken(p8PEM: generated, teamID: "TEAM123456", keyID: "KEY1234567", now: { Date() }).current().count > 100)
    }

    // MARK: - Request

    @Test func urgentRequestHasEveryHeaderAndThePayload() throws {
        let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
        var notification = APNsFixtures.notification(id: id)
        notification.collapseID = "grade-123"
        notification.expiresAt = Date(timeIntervalSince1970: 1_800_000_000)
        let token = "A1" + String(repeating: "b", count: 62)
        let request = try APNsRequest(notification, deviceToken: token, topic: APNsStandIn.topic)
        #expect(request.path == "/3/device/a1" + String(repeating: "b", count: 62))
        #expect(request.headers == [
            "apns-topic": APNsStandIn.topic, "apns-push-type": "alert", "apns-priority": "10",
            "apns-expiration": "1800000000", "apns-collapse-id": "grade-123", "apns-id": id.lowercased(),
            "content-type": "application/json",
        ])
        let payload = String(decoding: request.payload, as: UTF8.self)
        #expect(payload == #"{"aps":{"alert":{"body":"Your CMSC 131 grade was posted.","title":"New grade"},"sound":"default","thread-id":"grade.new"},"data":{"class":"123"}}"#)
        let lines = request.headerLines(bearer: "JWT")
        #expect(lines.first == "authorization: bearer JWT")
        #expect(lines.contains("apns-priority: 10"))
    }

    @Test func ordinaryRequestHasPriorityFiveNoSoundAndNoApnsIDForNonUUIDs() throws {
        var notification = APNsFixtures.notification(id: "outbox-42", urgent: false)
        notification.data = [:]
        let request = try APNsRequest(notification, deviceToken: APNsFixtures.deviceToken(), topic: APNsStandIn.topic)
        #expect(request.headers["apns-priority"] == "5")
        #expect(request.headers["apns-id"] == nil)
        #expect(request.headers["apns-expiration"] == nil)
        #expect(request.headers["apns-collapse-id"] == nil)
        #expect(String(decoding: request.payload, as: UTF8.self) == #"{"aps":{"alert":{"body":"Your CMSC 131 grade was posted.","title":"New grade"},"thread-id":"grade.new"}}"#)
    }

    @Test func payloadIsLimitedTo4096Bytes() throws {
        let token = APNsFixtures.deviceToken()
        let base = try APNsRequest(APNsFixtures.notification(body: ""), deviceToken: token, topic: APNsStandIn.topic).payload.count
        let fits = try APNsRequest(
            APNsFixtures.notification(body: String(repeating: "x", count: 4096 - base)), deviceToken: token, topic: APNsStandIn.topic)
        #expect(fits.payload.count == 4096)
        #expect(throws: APNsError.payloadTooLarge(size: 4097, limit: 4096)) {
            try APNsRequest(APNsFixtures.notification(body: String(repeating: "x", count: 4097 - base)), deviceToken: token, topic: APNsStandIn.topic)
        }
    }

    @Test(arguments: ["", "abc", String(repeating: "a", count: 63), String(repeating: "g", count: 64),
                      String(repeating: "a", count: 30), String(repeating: "a", count: 202), "a1 " + String(repeating: "0", count: 61)])
    func malformedDeviceTokensAreRefused(_ token: String) {
        #expect(throws: (any Error).self) { try APNsDeviceToken.normalized(token) }
    }

    @Test func topicAndCollapseIDAreValidated() throws {
        let token = APNsFixtures.deviceToken()
        #expect(throws: APNsError.invalidTopic) { try APNsRequest(APNsFixtures.notification(), deviceToken: token, topic: "bad\r\nx-injected: 1") }
        #expect(throws: APNsError.invalidTopic) { try APNsRequest(APNsFixtures.notification(), deviceToken: token, topic: "") }
        var notification = APNsFixtures.notification()
        notification.collapseID = String(repeating: "c", count: 65)
        #expect(throws: APNsError.invalidCollapseID(reason: "65 bytes, at most 64")) {
            try APNsRequest(notification, deviceToken: token, topic: APNsStandIn.topic)
        }
        notification.collapseID = String(repeating: "c", count: 64)
        #expect(try APNsRequest(notification, deviceToken: token, topic: APNsStandIn.topic).headers["apns-collapse-id"]?.count == 64)
        notification.collapseID = "a\nb"
        #expect(throws: APNsError.invalidCollapseID(reason: "control characters")) {
            try APNsRequest(notification, deviceToken: token, topic: APNsStandIn.topic)
        }
    }

    // MARK: - Response

    @Test func responsesAreClassified() {
        func outcome(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> DeliveryOutcome {
            APNsResponse(status: status, headers: headers, body: Data(body.utf8)).outcome
        }
        #expect(outcome(200) == .delivered(status: 200))
        #expect(outcome(410, #"{"reason":"Unregistered","timestamp":1700000000123}"#)
            == .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000.123), reason: "Unregistered"))
        #expect(outcome(410, #"{"reason":"ExpiredToken"}"#) == .deactivate(reason: "ExpiredToken"))
        #expect(outcome(400, #"{"reason":"BadDeviceToken"}"#) == .deactivate(reason: "BadDeviceToken"))
        #expect(outcome(400, #"{"reason":"DeviceTokenNotForTopic"}"#) == .deactivate(reason: "DeviceTokenNotForTopic"))
        #expect(outcome(429, #"{"reason":"TooManyRequests"}"#, headers: ["retry-after": "7"]) == .retry(after: .seconds(7), reason: "429 TooManyRequests"))
        #expect(outcome(429) == .retry(after: nil, reason: "status 429"))
        #expect(outcome(500, #"{"reason":"InternalServerError"}"#) == .retry(after: nil, reason: "500 InternalServerError"))
        #expect(outcome(503, #"{"reason":"ServiceUnavailable"}"#, headers: ["retry-after": "30"]) == .retry(after: .seconds(30), reason: "503 ServiceUnavailable"))
        #expect(outcome(403, #"{"reason":"ExpiredProviderToken"}"#) == .retry(after: nil, reason: "403 ExpiredProviderToken"))
        #expect(outcome(403, #"{"reason":"InvalidProviderToken"}"#) == .discarded(reason: "403 InvalidProviderToken"))
        #expect(outcome(400, #"{"reason":"BadCollapseId"}"#) == .discarded(reason: "400 BadCollapseId"))
        #expect(outcome(413, #"{"reason":"PayloadTooLarge"}"#) == .discarded(reason: "413 PayloadTooLarge"))
        #expect(outcome(404, "not json") == .discarded(reason: "status 404"))
        let parsed = APNsResponse(status: 200, headers: ["apns-id": "abc"], body: Data())
        #expect(parsed.apnsID == "abc" && parsed.reason == nil)
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func json(_ part: String) throws -> NSDictionary {
        let data = try #require(base64URL(part))
        return try #require(JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }
}
