import Catalog
import Contracts
import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Jobs
import Push
import Registration
import TestSupport
import Testing

/// Seat alerts from the registrar's own counts, through the whole application on both
/// backends: a signed delivery that opens a registrar term's full class tells its watcher once,
/// repeated and stale deliveries tell nothing more, and a class flapping in the feed tells a
/// watcher at most three times an hour.
@Suite("Registrar seat alerts", .serialized)
struct RegistrarSeatAlertTests {
    static let secret = WebhookSecret.generate()
    /// Class 7036 (48 of 48) in the demo term, and its schedule number.
    static let classID: Int64 = 7036
    static let number = "21073"

    static func gateway(_ backend: GatewayBackend, twilio: TwilioStandIn? = nil) async throws -> TestGateway {
        let gateway = try await TestGateway.registration(backend) {
            $0.jobs.workersEnabled = false
            $0.registrarWebhookSecrets = [Self.secret]
            if let twilio {
                $0.sms = SMSSettings(apiURL: twilio.baseURL, accountSID: twilio.accountSID, authToken: twilio.authToken, from: TwilioStandIn.fromNumber)
                $0.publicURL = URL(string: "https://gateway.example.edu/")
            }
        }
        let term = Term(
            id: DemoCatalog.term, name: "Fall 2018", firstDay: CivilDate(parsing: "2018-08-27")!, lastDay: CivilDate(parsing: "2018-12-12")!,
            timeZone: "America/Los_Angeles", seatsFrom: .registrar
        )
        _ = try await gateway.app.termService.put(id: term.id, term)
        return gateway
    }

    /// Posts one signed update of class 7036.
    static func deliver(
        _ client: some TestClientProtocol, _ gateway: TestGateway, enrolled: Int, status: String = "open", asOf: Date, id: String
    ) async throws -> HTTPReply {
        let body = #"{"term":"\#(DemoCatalog.term)","updates":[{"scheduleNumber":"\#(number)","seats":48,"enrolled":\#(enrolled),"status":"\#(status)","asOf":"\#(asOf.formatted(.iso8601))"}]}"#
        let seconds = Int64(gateway.clock.now().timeIntervalSince1970)
        var headers = HTTPFields()
        headers[HTTPField.Name("webhook-id")!] = id
        headers[HTTPField.Name("webhook-timestamp")!] = String(seconds)
        headers[HTTPField.Name("webhook-signature")!] = WebhookSignature.sign(id: id, timestamp: seconds, body: Data(body.utf8), secret: secret.bytes)
        return try await client.json(.post, "/v1/registrar/seat-status", body: body, headers: headers)
    }

    @Test(arguments: GatewayBackend.all)
    func anOpenSeatAtTheRegistrarTellsTheWatcherOnceOnALogDeviceAndBySMS(_ backend: GatewayBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await Self.gateway(backend, twilio: twilio)
        defer { gateway.cleanUp() }
        let watcher = try await SeatAlertDeliveryTests.watcher(gateway, "100000002", classID: Self.classID, rearm: false)
        // A second watcher on a confirmed phone.
        let texter = try await gateway.student("100000004")
        let app = gateway.app
        let (phone, _) = try await app.pushDevices.register(accountID: texter, DeviceService.Registration(channel: "sms", phone: "+16195550123"))
        try await SeatAlertSMSJourneyTests.drain(gateway)
        let confirmation = try #require(twilio.messages.first?.field("Body"))
        let code = String(try #require(confirmation.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }))
        _ = try await app.pushDevices.emails.confirm(deviceID: phone.id, accountID: texter, code: code)
        _ = try await app.seatAlerts.watch(accountID: texter, target: .classID(Self.classID), rearm: false, notifyClosed: false)
        try await SeatAlertDeliveryTests.drain(gateway)
        @Sendable func texts() -> [String] { twilio.messages.dropFirst().compactMap { $0.field("Body") } }
        let start = gateway.clock.now()
        try await gateway.withRouter { client in
            #expect(try await Self.deliver(client, gateway, enrolled: 48, asOf: start, id: "r1").status == .ok)
            try await SeatAlertDeliveryTests.drain(gateway)
            #expect(try await SeatAlertDeliveryTests.told(gateway, watcher) == 0, "still full")

            #expect(try await Self.deliver(client, gateway, enrolled: 47, asOf: start.addingTimeInterval(60), id: "r2").status == .ok)
            try await SeatAlertDeliveryTests.drain(gateway)
            #expect(try await SeatAlertDeliveryTests.told(gateway, watcher) == 1)

            // The same delivery again, a stale one, and a newer one still open: nothing more.
            #expect(try await Self.deliver(client, gateway, enrolled: 47, asOf: start.addingTimeInterval(60), id: "r2").object["duplicate"] as? Bool == true)
            #expect(try await Self.deliver(client, gateway, enrolled: 40, asOf: start.addingTimeInterval(30), id: "r3").object["stale"] as? Int == 1)
            #expect(try await Self.deliver(client, gateway, enrolled: 45, asOf: start.addingTimeInterval(120), id: "r4").object["applied"] as? Int == 1)
            try await SeatAlertDeliveryTests.drain(gateway)
            #expect(try await SeatAlertDeliveryTests.told(gateway, watcher) == 1, "one open event, one alert")
            try await SeatAlertSMSJourneyTests.drain(gateway)
            gateway.clock.advance(by: 600)
            try await SeatAlertSMSJourneyTests.drain(gateway)
            #expect(texts().count == 1, "texted once: \(texts())")
            #expect(texts().first?.contains("CS 540-01") == true && texts().first?.contains("#/catalog?class=7036") == true)

            // The public class view follows the registrar: a closed section has no open seat.
            #expect(try await Self.deliver(client, gateway, enrolled: 45, status: "closed", asOf: start.addingTimeInterval(180), id: "r5").status == .ok)
            let view = try await client.json(.get, "/v1/registration/classes/\(Self.classID)")
            #expect(view.object["status"] as? String == "closed" && view.object["openSeats"] as? Int == 0 && view.object["enrolled"] as? Int == 45)
        }
    }

    @Test(arguments: GatewayBackend.all)
    func aClassFlappingInTheFeedTellsAWatcherAtMostThreeTimesAnHour(_ backend: GatewayBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let watcher = try await SeatAlertDeliveryTests.watcher(gateway, "100000003", classID: Self.classID, rearm: true)
        try await SeatAlertDeliveryTests.drain(gateway)
        let start = gateway.clock.now()
        try await gateway.withRouter { client in
            for step in 0..<12 {
                let enrolled = step.isMultiple(of: 2) ? 48 : 47
                let reply = try await Self.deliver(client, gateway, enrolled: enrolled, asOf: start.addingTimeInterval(Double(step) * 60), id: "f\(step)")
                #expect(reply.object["applied"] as? Int == 1)
                try await SeatAlertDeliveryTests.drain(gateway)
                gateway.clock.advance(by: 60)
            }
        }
        #expect(try await SeatAlertDeliveryTests.told(gateway, watcher) == 3, "six openings in the feed, three alerts in the hour")
    }
}
