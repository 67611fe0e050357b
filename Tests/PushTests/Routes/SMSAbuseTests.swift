import Auth
import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
import GatewayHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Jobs
import NIOCore
import PostgresStores
import Push
import SQLiteStores
import Storage
import Testing
import TestSupport

/// Issue 47, findings 3 and 7, through the Push module's routes on both backends with texts
/// going to a Twilio stand-in (``TwilioStandIn``):
///
/// - SMS pumping: a number outside `GATEWAY_SMS_COUNTRIES` is refused (422 on `phone`) and
///   never texted; one client network gets only its share of the hour's confirmation texts and
///   of the day's new SMS devices, counted in the database (two instances share it), so other
///   networks' texts still go.
/// - Inbound replays: each message is applied once by its `MessageSid` (a repeat answers 200
///   and changes nothing), so a captured START can't undo a later STOP; a START received no
///   later than the STOP is stale; the MessageSids are forgotten after 35 days.
@Suite("SMS pumping and inbound replays", .serialized)
struct SMSAbuseTests {
    /// Who a request comes from, as the front door sets it from a trusted proxy.
    static let clientHeader = HTTPField.Name("X-Test-Client-Address")!

    static func register(_ client: any TestClientProtocol, _ phone: String, token: String, from address: String? = nil) async throws -> HTTPReply {
        var headers = HTTPFields()
        if let address { headers[clientHeader] = address }
        return try await client.json(.post, "/v1/me/devices", body: #"{"channel": "sms", "phone": "\#(phone)"}"#, token: token, headers: headers)
    }

    static func resend(_ client: any TestClientProtocol, _ id: Int, token: String, from address: String) async throws -> HTTPReply {
        try await client.json(.post, "/v1/me/devices/\(id)/resend-confirmation", token: token, headers: [clientHeader: address])
    }

    static func expectNetworkLimited(_ reply: HTTPReply, _ comment: Comment) {
        #expect(reply.status == .tooManyRequests, comment)
        #expect(reply.contentType == "application/problem+json", comment)
        #expect(reply.object["type"] as? String == "/problems/confirmation-mail-limit", comment)
        #expect((reply.object["detail"] as? String)?.contains("from this network") == true, "\(comment): \(reply.body)")
        #expect(reply.headers[HTTPField.Name("Retry-After")!].flatMap(Int.init).map { $0 > 0 && $0 <= 86_400 } == true, comment)
    }

    static func sid(_ n: Int) -> String { "SM" + String(format: "%032x", n) }

    static func fields(from: String, body: String, sid: String, account: String) -> [(name: String, value: String)] {
        [
            ("ToCountry", "US"), ("SmsMessageSid", sid), ("NumMedia", "0"), ("From", from), ("To", TwilioStandIn.fromNumber),
            ("Body", body), ("MessageSid", sid), ("AccountSid", account), ("ApiVersion", "2010-04-01"), ("NumSegments", "1"),
        ]
    }

    /// Posts `body` from `from` as message `sid`, signed as Twilio signs.
    static func inbound(_ client: any TestClientProtocol, _ twilio: TwilioStandIn, from: String, body: String, sid: String) async throws -> HTTPReply {
        try await SMSDeviceTests.inbound(client, fields(from: from, body: body, sid: sid, account: twilio.accountSID), authToken: twilio.authToken)
    }

    static func expectEmptyTwiML(_ reply: HTTPReply, _ comment: Comment) {
        #expect(reply.status == .ok, comment)
        #expect(reply.contentType == "text/xml", comment)
        #expect(reply.body == SMSRoutes.emptyTwiML, comment)
    }

    // MARK: Finding 3: SMS pumping

    /// Before, any E.164 number was accepted and texted, premium-rate numbers abroad included.
    @Test(arguments: TestBackend.all)
    func aNumberOutsideTheCountriesIsRefusedAndNothingIsSent(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            // The United Kingdom, Latvia, Gibraltar, an international network (+882), a +28…
            // that no country has: none is on the default list (+1).
            for number in ["+447700900123", "+37120000000", "+35012345678", "+88234567890", "+28012345678"] {
                let reply = try await SMSDeviceTests.register(client, number, token: ada)
                #expect(reply.status == .unprocessableContent, "\(number)")
                #expect(reply.contentType == "application/problem+json")
                #expect(reply.object["type"] as? String == "/problems/validation-failed")
                #expect((reply.object["invalidFields"] as? [String]) == ["phone"], "\(number): \(reply.body)")
                let errors = try #require(reply.object["errors"] as? [[String: Any]], "\(reply.body)")
                #expect(errors.count == 1 && errors.first?["pointer"] as? String == "/phone")
                #expect((errors.first?["detail"] as? String)?.contains("+1") == true, "\(reply.body)")
                #expect(!reply.body.contains(number), "the number is not echoed back")
            }
            // Any +1 number (the whole North American plan: here the Bahamas) is.
            #expect(try await SMSDeviceTests.register(client, "+12425550123", token: ada).status == .created)
        }
        try await gateway.deliverAll()
        #expect(try await gateway.integer("SELECT count(*) FROM push_devices WHERE channel = 'sms'") == 1)
        #expect(try await gateway.integer("SELECT count(*) FROM push_confirmation_sends WHERE channel = 'sms'") == 1)
        #expect(try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.sms-confirmation'") == 1)
        #expect(twilio.messages.map { $0.field("To") } == ["+12425550123"], "nothing was texted abroad")
    }

    /// `GATEWAY_SMS_COUNTRIES=1,+44`: +44 numbers go, Ireland's +353 and Austria's +43 don't.
    @Test(arguments: TestBackend.all)
    func theCountriesAreMatchedByCallingCode(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio), smsCountries: try SMSCountries(parsing: "1, +44"))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            #expect(try await SMSDeviceTests.register(client, "+447700900123", token: ada).status == .created)
            #expect(try await SMSDeviceTests.register(client, "+16195550123", token: ada).status == .created)
            #expect(try await SMSDeviceTests.register(client, "+353861234567", token: ada).status == .unprocessableContent)
            #expect(try await SMSDeviceTests.register(client, "+43664123456", token: ada).status == .unprocessableContent)
        }
        try await gateway.deliverAll()
        #expect(Set(twilio.messages.compactMap { $0.field("To") }) == ["+447700900123", "+16195550123"])
    }

    /// Before, one network could spend the whole hourly cap (30 sign-ups × 10 texts), and every
    /// other student's confirmation answered 429 `confirmationsPaused`. Now it gets its share,
    /// counted in the database (here across two instances), and others' texts still go.
    @Test(arguments: TestBackend.all)
    func oneNetworkUsingItsShareLeavesOtherNetworksTexts(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(
            backend, delivery: .init(twilio: twilio), smsConfirmations: SMSQuota(hourlyCap: 5, perNetworkHourly: 2), instances: 2
        )
        defer { gateway.cleanUp() }
        let second = try #require(gateway.secondInstance)
        var tokens: [String] = []
        for name in ["mallory", "mallory2", "ada", "bob", "carol"] { tokens.append(try await gateway.account(name, role: .student)) }
        let (mallory, mallory2, ada, bob, carol) = (tokens[0], tokens[1], tokens[2], tokens[3], tokens[4])
        // One IPv6 /64, whichever addresses inside it.
        let attacker = ["2001:db8:47:1::10", "2001:db8:47:1:ffff::2", "2001:db8:47:1:0:0:0:99"]
        let id = try await gateway.withClientAddresses(gateway.router) { client async throws -> Int in
            let first = try await Self.register(client, "+16195550101", token: mallory, from: attacker[0])
            #expect(first.status == .created)
            return try SMSDeviceTests.deviceID(first)
        }
        try await gateway.withClientAddresses(second) { client async throws in
            #expect(try await Self.register(client, "+16195550102", token: mallory2, from: attacker[1]).status == .created, "the other instance")
        }
        try await gateway.withClientAddresses(gateway.router) { client async throws in
            Self.expectNetworkLimited(try await Self.register(client, "+16195550103", token: mallory2, from: attacker[2]), "the network's third text")
            Self.expectNetworkLimited(try await Self.resend(client, id, token: mallory, from: attacker[0]), "a resend counts too")
            // Other networks' students are texted.
            #expect(try await Self.register(client, "+16195550201", token: ada, from: "198.51.100.20").status == .created)
        }
        try await gateway.withClientAddresses(second) { client async throws in
            Self.expectNetworkLimited(try await Self.register(client, "+16195550104", token: mallory, from: attacker[0]), "on the other instance too")
            #expect(try await Self.register(client, "+16195550202", token: bob, from: "2001:db8:99:2::1").status == .created)
            #expect(try await Self.register(client, "+16195550203", token: carol, from: "203.0.113.9").status == .created)
            // The gateway-wide cap still holds: five texts this hour.
            let paused = try await Self.register(client, "+16195550204", token: carol, from: "192.0.2.44")
            #expect(paused.status == .tooManyRequests)
            #expect((paused.object["detail"] as? String)?.contains("in an hour") == true, "\(paused.body)")
        }
        try await gateway.deliverAll()
        #expect(Set(twilio.messages.compactMap { $0.field("To") }) == ["+16195550101", "+16195550102", "+16195550201", "+16195550202", "+16195550203"])
        // Networks are counted by keyed hash, never the address.
        #expect(try await gateway.integer("SELECT count(DISTINCT network) FROM push_confirmation_sends WHERE channel = 'sms'") == 4)
        #expect(try await gateway.integer("SELECT count(*) FROM push_confirmation_sends WHERE length(network) = 32") == 5)

        // An hour later the network has a share again.
        gateway.clock.advance(by: 3601)
        let fresh = try await gateway.auth.issueToken(username: "mallory2", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withClientAddresses(gateway.router) { client async throws in
            #expect(try await Self.register(client, "+16195550103", token: fresh, from: attacker[2]).status == .created)
        }
    }

    /// One network adds a bounded number of SMS devices a day, whichever accounts; resending a
    /// code to one it added is still within its share of texts.
    @Test(arguments: TestBackend.all)
    func oneNetworkAddsABoundedNumberOfSMSDevicesADay(_ backend: TestBackend) async throws {
        let gateway = try await PushGateway.make(backend, smsConfirmations: SMSQuota(hourlyCap: 100, perNetworkHourly: 50, newDevicesPerNetwork: 2))
        defer { gateway.cleanUp() }
        let mallory = try await gateway.account("mallory", role: .student)
        let accomplice = try await gateway.account("accomplice", role: .student)
        let network = "203.0.113.66"
        try await gateway.withClientAddresses(gateway.router) { client async throws in
            let first = try await Self.register(client, "+16195550301", token: mallory, from: network)
            #expect(first.status == .created)
            #expect(try await Self.register(client, "+16195550302", token: accomplice, from: network).status == .created)
            Self.expectNetworkLimited(try await Self.register(client, "+16195550303", token: accomplice, from: network), "a third new device")
            #expect(try await Self.resend(client, try SMSDeviceTests.deviceID(first), token: mallory, from: network).status == .accepted)
            #expect(try await Self.register(client, "+16195550303", token: accomplice, from: "203.0.113.67").status == .created, "another network")
        }
        gateway.clock.advance(by: 24 * 3600 + 1)
        let fresh = try await gateway.auth.issueToken(username: "accomplice", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withClientAddresses(gateway.router) { client async throws in
            #expect(try await Self.register(client, "+16195550304", token: fresh, from: network).status == .created, "a day later")
        }
    }

    // MARK: Finding 7: inbound replays

    /// Before, a captured `Body=START` post, replayed after the owner texted STOP, unmuted the
    /// number: the signature has no timestamp and MessageSids were never remembered.
    @Test(arguments: TestBackend.all)
    func aReplayedStartAfterStopChangesNothing(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let number = SMSDeviceTests.number
        try await gateway.withRouter { client async throws in
            let id = try await SMSDeviceTests.confirmedDevice(gateway, twilio, client, phone: number, token: ada)
            // The owner texts START (captured on the way), later STOP.
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "START", sid: Self.sid(1)), "START")
            gateway.clock.advance(by: 60)
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "STOP", sid: Self.sid(2)), "STOP")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 1)

            // The captured START, replayed a day later: 200 as always, and nothing changes.
            gateway.clock.advance(by: 24 * 3600)
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "START", sid: Self.sid(1)), "the replay")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 1, "still muted")
            let sent = twilio.messages.count
            _ = try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "after-replay", OutgoingNotification(
                id: "n-1", category: "seat.open", title: "CS 540-02 (class 7036): 1 seat open", body: "b", urgent: true
            ))
            try await gateway.deliverAll()
            #expect(twilio.messages.count == sent, "a muted number gets nothing")
        }
    }

    /// A post repeating a MessageSid already applied answers 200 and changes nothing, whatever
    /// its body; a START received no later than the number's STOP leaves the STOP standing, and
    /// a genuinely later START still unmutes.
    @Test(arguments: TestBackend.all)
    func aRepeatedMessageSidIsANoOp(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let logs = CapturedLogs()
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio), logs: logs)
        defer { gateway.cleanUp() }
        let number = "+16195550777"
        try await gateway.withRouter { client async throws in
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "STOP", sid: Self.sid(10)), "STOP")
            gateway.clock.advance(by: 5)
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "START", sid: Self.sid(11)), "START")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0)

            gateway.clock.advance(by: 5)
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "STOP", sid: Self.sid(10)), "the STOP again")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0, "a repeat changes nothing")
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "stop", sid: Self.sid(11)), "the START's id, another body")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0)
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_inbound") == 2, "one row per message")

            // A new STOP, then a START the gateway received at the same instant: the STOP stands.
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "STOP", sid: Self.sid(12)), "STOP")
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "START", sid: Self.sid(13)), "a START no later")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 1)
            gateway.clock.advance(by: 1)
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: number, body: "START", sid: Self.sid(14)), "a later START")
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0)
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_keywords WHERE keyword = 'start' AND length(recipient) = 32") == 1)
        }
        #expect(!logs.all.contains { $0.contains(number) }, "numbers are logged masked")
        #expect(!logs.all.contains { $0.contains(twilio.authToken) })
    }

    /// The MessageSids are kept 35 days, then the hourly retention forgets them.
    @Test(arguments: TestBackend.all)
    func inboundMessageIdsAreForgottenAfterThirtyFiveDays(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio))
        defer { gateway.cleanUp() }
        let stores: PushStores = switch gateway.backend {
        case .sqlite(let database): .sqlite(database: database, sealer: TestVaultSealing())
        case .postgres: .postgres(sealer: TestVaultSealing())
        }
        let retention = PushRetention(
            transactions: gateway.transactions, store: stores.retention, devices: stores.devices, accounts: NoDeviceGradebookAccounts(), clock: gateway.clock
        )
        try await gateway.withRouter { client async throws in
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: "+16195550888", body: "STOP", sid: Self.sid(20)), "STOP")
        }
        gateway.clock.advance(by: 30 * 24 * 3600)
        #expect(try await retention.run().inboundTexts == 0, "kept at least 30 days")
        try await gateway.withRouter { client async throws in
            Self.expectEmptyTwiML(try await Self.inbound(client, twilio, from: "+16195550888", body: "START", sid: Self.sid(20)), "a replay on day 30")
        }
        #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 1, "refused on day 30")
        gateway.clock.advance(by: 5 * 24 * 3600 + 1)
        #expect(try await retention.run().inboundTexts == 1)
        #expect(try await gateway.integer("SELECT count(*) FROM push_sms_inbound") == 0)
    }
}

/// Sets the request's client address from ``SMSAbuseTests/clientHeader``, as the application's
/// front door does from a trusted proxy's `X-Forwarded-For`, before the module's router.
struct TestClientAddressResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == GatewayContext {
    typealias Context = GatewayContext
    let inner: Inner

    func respond(to request: Request, context: GatewayContext) async throws -> Response {
        var context = context
        if let address = request.headers[SMSAbuseTests.clientHeader] { context.clientAddress = address }
        return try await inner.respond(to: request, context: context)
    }
}

extension PushGateway {
    /// Runs `body` against `instance`'s router, each request counted under the client address
    /// its ``SMSAbuseTests/clientHeader`` names.
    @discardableResult
    func withClientAddresses<T: Sendable>(
        _ instance: ModuleRouter<PushModule>, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let result = Captured<T?>(nil)
        let responder = TestClientAddressResponder(inner: instance.makeRouter().buildResponder())
        try await Application(responder: responder).test(.router) { client in result.set(try await body(client)) }
        return try #require(result.value)
    }
}
