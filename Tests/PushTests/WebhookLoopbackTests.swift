import Foundation
import GatewayCore
import HTTPClient
import Push
import Testing

/// The webhook channel over real HTTP with libcurl: a Python receiver on 127.0.0.1
/// (push_receiver.py) verifies each signature with its own `hmac` code from the `whsec_`
/// secret and answers the status the test chose.
@Suite("Webhooks over loopback", .serialized)
struct WebhookLoopbackTests {
    static let secret = WebhookSecret.generate()

    static func receiver() async throws -> PushReceiver {
        try await PushReceiver(environment: ["WEBHOOK_SECRET": secret.displayValue])
    }

    static func channel(allowedDestinations: DestinationAllowList, insecureLoopback: Bool) -> WebhookChannel {
        let client = CurlHTTPClient(configuration: .init(threadCount: 1, connectTimeout: .seconds(5), allowedDestinations: allowedDestinations))
        return WebhookChannel(client: client, configuration: .init(requestTimeout: .seconds(10), allowInsecureLoopbackForTesting: insecureLoopback))
    }

    static let notification = OutgoingNotification(
        id: "n-web-1", category: "class.cancelled", title: "Class cancelled", body: "MATH 141 is cancelled", data: ["class": "141"]
    )

    @Test func theReceiverVerifiesTheSignatureIndependently() async throws {
        let receiver = try await Self.receiver()
        defer { receiver.stop() }
        let channel = Self.channel(allowedDestinations: .loopback, insecureLoopback: true)
        let outcome = await channel.deliver(Self.notification, to: .webhook(url: receiver.url("/webhook/200"), secret: Self.secret.bytes))
        #expect(outcome == .delivered(status: 200))
        let record = try #require(try receiver.records().first)
        #expect(record.signature_valid == true, "\(record.signature_error ?? "")")
        #expect(record.headers?["webhook-id"] == "n-web-1")
        #expect(record.headers?["content-type"] == "application/json")
        let body = try JSONSerialization.jsonObject(with: Data(try #require(record.body).utf8)) as? [String: Any]
        #expect(body?["id"] as? String == "n-web-1")
        #expect(body?["type"] as? String == "class.cancelled")
        #expect(body?["data"] as? [String: String] == ["class": "141", "title": "Class cancelled", "body": "MATH 141 is cancelled"])

        // Signed with another secret, the same delivery is rejected by the receiver.
        _ = await channel.deliver(Self.notification, to: .webhook(url: receiver.url("/webhook/200"), secret: WebhookSecret.generate().bytes))
        let forged = try receiver.records()
        #expect(forged.count == 2)
        #expect(forged.last?.signature_valid == false)
    }

    @Test func statusesMapToOutcomes() async throws {
        let receiver = try await Self.receiver()
        defer { receiver.stop() }
        let channel = Self.channel(allowedDestinations: .loopback, insecureLoopback: true)
        let cases: [(String, (DeliveryOutcome) -> Bool)] = [
            ("/webhook/200", { $0 == .delivered(status: 200) }),
            ("/webhook/204", { $0 == .delivered(status: 204) }),
            ("/webhook/410", { $0 == .deactivate(reason: "webhook receiver answered 410: gone") }),
            ("/webhook/429/45", { $0 == .retry(after: .seconds(45), reason: "webhook receiver answered 429") }),
            ("/webhook/503/date", {
                guard case .retry(let after?, _) = $0 else { return false }
                return after >= .seconds(80) && after <= .seconds(91)
            }),
            ("/webhook/500", { $0 == .retry(after: nil, reason: "webhook receiver answered 500") }),
            ("/webhook/404", { $0 == .discarded(reason: "webhook receiver answered 404") }),
            ("/webhook/400", { $0 == .discarded(reason: "webhook receiver answered 400") }),
        ]
        for (path, matches) in cases {
            let outcome = await channel.deliver(Self.notification, to: .webhook(url: receiver.url(path), secret: Self.secret.bytes))
            #expect(matches(outcome), "\(path): \(outcome)")
        }
        let records = try receiver.records()
        #expect(records.count == cases.count)
        #expect(records.allSatisfy { $0.signature_valid == true })
    }

    @Test func restrictedDestinationsAreRefusedByTheDefaultClient() async throws {
        let receiver = try await Self.receiver()
        defer { receiver.stop() }
        let channel = Self.channel(allowedDestinations: .none, insecureLoopback: false)
        for (url, reason) in [
            ("https://127.0.0.1:\(receiver.port)/webhook/200", "webhook URL not allowed: loopback addresses are not allowed"),
            ("https://169.254.169.254/latest/meta-data/", "webhook URL not allowed: cloud metadata addresses are not allowed"),
            ("http://example.com/hook", "webhook URL not allowed: only https URLs are allowed"),
            ("http://127.0.0.1:\(receiver.port)/webhook/200", "webhook URL not allowed: only https URLs are allowed"),
        ] {
            #expect(await channel.deliver(Self.notification, to: .webhook(url: URL(string: url)!, secret: Self.secret.bytes)) == .discarded(reason: reason))
        }
        let viaName = await channel.deliver(
            Self.notification, to: .webhook(url: URL(string: "https://localhost:\(receiver.port)/webhook/200")!, secret: Self.secret.bytes)
        )
        guard case .discarded(let reason) = viaName else {
            Issue.record("localhost was not refused: \(viaName)")
            return
        }
        #expect(reason.hasPrefix("the destination resolves to a loopback address"))
        #expect(try receiver.records().isEmpty)
    }
}
