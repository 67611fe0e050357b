import Foundation
import GatewayCore
import HTTPClient
import Push
import Testing

/// The webhook channel against a recording client: the signed request and what each answer
/// becomes.
@Suite("Webhook channel")
struct WebhookChannelTests {
    static let clock = ManualClock(Date(timeIntervalSince1970: 1_790_000_000))
    static let secret = WebhookSecret.generate()
    static let url = URL(string: "https://hooks.example.org/campus?token=abc")!
    static let address = DeviceAddress.webhook(url: url, secret: secret.bytes)
    static let notification = OutgoingNotification(
        id: "n-9", category: "grade.new", title: "New grade", body: "CS 101: A", data: ["course": "CS 101", "title": "ignored"]
    )

    static func channel(_ client: any HTTPClient) -> WebhookChannel {
        WebhookChannel(client: client, clock: clock)
    }

    @Test func theRequestIsSignedJSON() async throws {
        let client = RecordingHTTPClient(status: 204)
        #expect(await Self.channel(client).deliver(Self.notification, to: Self.address) == .delivered(status: 204))
        let request = try #require(client.requests.first)
        #expect(request.method == .post)
        #expect(request.url == Self.url)
        #expect(!request.followRedirects)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["webhook-id"] == "n-9")
        #expect(request.headers["webhook-timestamp"] == "1790000000")
        let body = try #require(request.body)
        #expect(String(decoding: body, as: UTF8.self) == #"{"data":{"body":"CS 101: A","course":"CS 101","title":"New grade"},"id":"n-9","timestamp":"2026-09-21T14:13:20Z","type":"grade.new"}"#)
        try WebhookSignature.verify(
            id: "n-9", timestamp: "1790000000", body: body, signatures: try #require(request.headers["webhook-signature"]),
            secret: Self.secret.bytes, now: Self.clock.now()
        )
    }

    @Test func retriesKeepTheIdAndSignTheirOwnTime() async throws {
        let client = RecordingHTTPClient(status: 200)
        let clock = ManualClock(Self.clock.now())
        let channel = WebhookChannel(client: client, clock: clock)
        _ = await channel.deliver(Self.notification, to: Self.address)
        clock.advance(by: 90)
        _ = await channel.deliver(Self.notification, to: Self.address)
        let requests = client.requests
        #expect(requests.map { $0.headers["webhook-id"] } == ["n-9", "n-9"])
        #expect(requests.map { $0.headers["webhook-timestamp"] } == ["1790000000", "1790000090"])
        #expect(requests[0].headers["webhook-signature"] != requests[1].headers["webhook-signature"])
    }

    @Test func answersMapToOutcomes() async {
        let cases: [(OutboundResponse, DeliveryOutcome)] = [
            (.init(status: 200), .delivered(status: 200)),
            (.init(status: 202), .delivered(status: 202)),
            (.init(status: 410), .deactivate(reason: "webhook receiver answered 410: gone")),
            (.init(status: 429, headers: ["Retry-After": "30"]), .retry(after: .seconds(30), reason: "webhook receiver answered 429")),
            (.init(status: 503), .retry(after: nil, reason: "webhook receiver answered 503")),
            (.init(status: 500, headers: ["retry-after": "Mon, 21 Sep 2026 14:13:50 GMT"]), .retry(after: .seconds(30), reason: "webhook receiver answered 500")),
            (.init(status: 404), .discarded(reason: "webhook receiver answered 404")),
            (.init(status: 400), .discarded(reason: "webhook receiver answered 400")),
            (.init(status: 302, headers: ["Location": "http://169.254.169.254/"]), .discarded(reason: "webhook receiver answered 302")),
        ]
        for (response, expected) in cases {
            #expect(await Self.channel(RecordingHTTPClient { _ in response }).deliver(Self.notification, to: Self.address) == expected)
        }
        let failing = Self.channel(RecordingHTTPClient { _ in throw HTTPClientError.connectionFailed(message: "refused") })
        #expect(await failing.deliver(Self.notification, to: Self.address) == .retry(after: nil, reason: "connection failed"))
    }

    @Test func unsafeURLsAndWeakSecretsAreNeverContacted() async {
        let client = RecordingHTTPClient(status: 200)
        let channel = Self.channel(client)
        for (url, reason) in [
            ("http://hooks.example.org/x", "only https URLs are allowed"),
            ("https://127.0.0.1/x", "loopback addresses are not allowed"),
            ("https://169.254.169.254/latest/meta-data/", "cloud metadata addresses are not allowed"),
            ("https://[fe80::1]/x", "link-local addresses are not allowed"),
            ("https://192.168.0.10/x", "private addresses are not allowed"),
            ("https://user:pw@hooks.example.org/x", "the URL carries credentials"),
        ] {
            let address = DeviceAddress.webhook(url: URL(string: url)!, secret: Self.secret.bytes)
            #expect(await channel.deliver(Self.notification, to: address) == .discarded(reason: "webhook URL not allowed: \(reason)"))
        }
        #expect(await channel.deliver(Self.notification, to: .webhook(url: Self.url, secret: Data(count: 8)))
            == .deactivate(reason: "the webhook secret is shorter than 16 bytes"))
        var expired = Self.notification
        expired.expiresAt = Self.clock.now().addingTimeInterval(-5)
        #expect(await channel.deliver(expired, to: Self.address) == .discarded(reason: "expired before it was sent"))
        #expect(await channel.deliver(Self.notification, to: .log) == .discarded(reason: "not a webhook address"))
        #expect(client.requests.isEmpty)
    }
}
