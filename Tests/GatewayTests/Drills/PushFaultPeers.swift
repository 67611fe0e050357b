import Foundation
import GatewayApp
import GatewayCore
import HTTPClient
import Push
import TestSupport
import Testing

/// The push half of the upstream fault drill: every channel's peer sits behind a ``FaultyLink``
/// that the drill turns faulty. Webhooks and Web Push reach a ``LoopbackReceiver`` behind their
/// links (on 127.0.0.2 and 127.0.0.3, so neither shares the other's per-host delivery lane),
/// email reaches the SMTP stand-in (STARTTLS and AUTH through the link), and APNs reaches
/// nothing: its link only fails (its own HTTP/2 answers, 429, 5xx and the rest, are tested
/// against the h2 stand-in in PushTests).
final class PushFaultPeers: @unchecked Sendable {
    static let smtpPassword = "smtp-drill-secret"

    let receiver: LoopbackReceiver
    let smtp: SMTPStandIn
    let webhook: FaultyLink
    let webPush: FaultyLink
    let email: FaultyLink
    let apns: FaultyLink
    let vapid = VAPIDKeys.generate()

    init() throws {
        receiver = try LoopbackReceiver(host: "127.0.0.1", behaviour: .answer, lifetime: .seconds(600))
        smtp = try SMTPStandIn(username: "gateway", password: Self.smtpPassword)
        webhook = try FaultyLink(host: "127.0.0.2", speech: .http, upstreamPort: receiver.port)
        webPush = try FaultyLink(host: "127.0.0.3", speech: .http, upstreamPort: receiver.port)
        email = try FaultyLink(speech: .smtp, upstreamPort: smtp.port)
        apns = try FaultyLink(speech: .tls, upstreamPort: nil)
    }

    /// Points the gateway's SMTP server and APNs at their links, with Web Push keys.
    func configure(_ config: inout GatewayConfiguration) {
        config.allowInsecurePushEndpoints = true
        config.vapidKeys = vapid
        config.publicURL = URL(string: "https://gateway.example.edu/")
        config.smtp = SMTPSettings(
            url: URL(string: "smtp://127.0.0.1:\(email.port)")!, from: "gateway@campus.example.edu", username: "gateway",
            password: Self.smtpPassword, caFile: smtp.caFile
        )
        config.apns = APNsSettings(
            keyFile: APNsWiringTests.keyFile, keyID: "KEY1234567", teamID: "TEAM123456", baseURL: URL(string: "https://127.0.0.1:\(apns.port)")
        )
    }

    /// The links by channel name.
    var links: [(channel: String, link: FaultyLink)] {
        [("webhook", webhook), ("webpush", webPush), ("email", email), ("apns", apns)]
    }

    /// Every link that has `fault` shows it (APNs has no refusal of its own and stays as it was).
    func set(_ fault: FaultyLink.Fault) {
        for (_, link) in links where link.supports(fault) { link.fault = fault }
    }

    func stop() {
        for (_, link) in links { link.stop() }
        receiver.stop()
        smtp.stop()
    }

    /// One device per channel, each its own student's (so no student's delivery limits hold
    /// up another channel): ids by channel name. The email address is confirmed with the code
    /// its confirmation mail brought through the healthy link; webhooks and Web Push deliver
    /// once through theirs.
    func registerDevices(_ gateway: TestGateway, _ client: FaultDrillProber) async throws -> [String: Int64] {
        var devices: [String: Int64] = [:]
        let subscriber = VAPIDKeys.generate()
        let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let bodies = [
            "webhook": #"{"channel": "webhook", "url": "\#(webhook.url("/hook"))"}"#,
            "webpush": #"{"channel": "webpush", "endpoint": "\#(webPush.url("/push"))", "p256dh": "\#(subscriber.publicKeyBase64URL)", "auth": "\#(auth)"}"#,
            "email": #"{"channel": "email", "email": "drill@example.edu", "name": "inbox"}"#,
            "apns": #"{"channel": "apns", "token": "\#(String(repeating: "ab", count: 32))", "topic": "edu.campus.gateway", "environment": "sandbox"}"#,
        ]
        for (channel, body) in bodies {
            let token = try await gateway.account("drill-\(channel)", role: .student)
            let created = try await client.json(.post, "/v1/me/devices", body: body, token: token)
            #expect(created.status == 201, "\(channel): \(created.object)")
            let id = try #require((created.object["device"] as? [String: Any])?["id"] as? Int, "\(created.object)")
            devices[channel] = Int64(id)
            if channel == "email" {
                let mailed = await eventually(seconds: 20) { [smtp] in !smtp.messages().isEmpty }
                #expect(mailed, "the confirmation mail came through the healthy SMTP link")
                let message = try #require(smtp.messages().first)
                let code = try message.confirmationCode()
                let confirmed = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: token)
                #expect(confirmed.status == 200, "\(confirmed.object)")
            }
        }
        return devices
    }

    /// The notifications a key prefix names, by channel.
    func notifications(_ gateway: TestGateway, _ devices: [String: Int64], prefix: String) async throws -> [String: [StoredNotification]] {
        var found: [String: [StoredNotification]] = [:]
        for (channel, id) in devices {
            found[channel] = try await gateway.app.outbox.recent(state: nil, deviceIDs: [id], limit: 500).filter { $0.uniqueKey.hasPrefix(prefix) }
        }
        return found
    }
}
