import Contracts
import Foundation
import GatewayApp
import GatewayCore
import Jobs
import Push
import Registration
import Testing
import TestSupport

/// A seat alert texted through the whole application, on both backends: the gateway configured
/// with a Twilio-compatible provider (a ``TwilioStandIn`` on 127.0.0.1, as `GATEWAY_SMS_*`
/// would set it), a watcher with a confirmed SMS device, and an admin raising a full class's
/// seats (Registration's open event). The text reaches the number exactly once, names the
/// course and section, links to the class in the web app and carries no token. (SMS devices
/// alone are tested in PushTests' SMSDeviceTests.)
@Suite("Seat alert texts", .serialized)
struct SeatAlertSMSJourneyTests {
    static let number = "+16195550123"

    static func drain(_ gateway: TestGateway) async throws {
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        _ = try await gateway.app.runQueuedJobs(queue: "default")
        _ = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
    }

    @Test(arguments: GatewayBackend.all)
    func anOpenSeatIsTextedToAConfirmedWatcherOnce(_ backend: GatewayBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await TestGateway.registration(backend) { config in
            config.jobs.workersEnabled = false
            config.sms = SMSSettings(apiURL: twilio.baseURL, accountSID: twilio.accountSID, authToken: twilio.authToken, from: TwilioStandIn.fromNumber)
            config.publicURL = URL(string: "https://gateway.example.edu/")
        }
        defer { gateway.cleanUp() }
        try await gateway.openSeats(0, in: 7036)
        try await Self.drain(gateway)
        let watcher = try await gateway.student("100000002")
        let app = gateway.app
        let (device, _) = try await app.pushDevices.register(accountID: watcher, DeviceService.Registration(channel: "sms", phone: Self.number))
        try await Self.drain(gateway)
        let confirmation = try #require(twilio.messages.first?.field("Body"))
        let code = String(try #require(confirmation.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }))
        _ = try await app.pushDevices.emails.confirm(deviceID: device.id, accountID: watcher, code: code)
        _ = try await app.seatAlerts.watch(accountID: watcher, target: .classID(7036), rearm: false, notifyClosed: false)
        #expect(twilio.messages.count == 1)

        // An admin adds a seat to the full class: one open event, one text.
        try await gateway.openSeats(1, in: 7036)
        try await Self.drain(gateway)
        gateway.clock.advance(by: 600)
        try await Self.drain(gateway)
        let texts = twilio.messages.dropFirst()
        #expect(texts.count == 1, "exactly once: \(texts.map { $0.field("Body") ?? "" })")
        let text = try #require(texts.first)
        #expect(text.field("To") == Self.number)
        let body = try #require(text.field("Body"))
        #expect(body.hasPrefix("Campus Gateway: CS 540-01 (class 7036): 1 seat open."), "\(body)")
        #expect(body.hasSuffix(" https://gateway.example.edu/#/catalog?class=7036"), "\(body)")
        #expect(SMSText.segments(body) <= 2 && SMSText.isGSMSafe(body))
        #expect(!body.contains("token") && !body.contains("?token") && !body.contains("unsubscribe"), "no token in a text")
        #expect(try await gateway.integer("SELECT count(*) FROM push_notifications WHERE category = 'seat.open' AND state = 'delivered'") == 1)
    }
}
