import Auth
import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import Jobs
import NIOCore
import Push
import Storage
import Testing
import TestSupport

/// SMS devices end to end through the Push module's routes (``PushGateway``), on both
/// backends, with texts going to a Twilio stand-in on 127.0.0.1 (``TwilioStandIn``): the code
/// texted, refused when wrong, confirmed; the per-number quota across accounts; inbound posts
/// signed or refused, STOP muting the number on every account and START unmuting it; texts
/// never carrying a token; the auth token never logged; retryable failures retried with
/// backoff and a STOP at the provider (21610) not retried.
@Suite("SMS devices", .serialized)
struct SMSDeviceTests {
    static let number = "+16195550123"

    static func register(_ client: any TestClientProtocol, _ phone: String, token: String) async throws -> HTTPReply {
        try await client.json(.post, "/v1/me/devices", body: #"{"channel": "sms", "phone": "\#(phone)", "name": "phone"}"#, token: token)
    }

    static func deviceID(_ reply: HTTPReply) throws -> Int {
        try #require((reply.object["device"] as? [String: Any])?["id"] as? Int)
    }

    /// The six-digit code in a confirmation text.
    static func code(in text: String) throws -> String {
        let digits = text.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }
        return String(try #require(digits, "no code in \(text)"))
    }

    /// Registers `phone` for `token`'s student and confirms it with the texted code.
    static func confirmedDevice(_ gateway: PushGateway, _ twilio: TwilioStandIn, _ client: any TestClientProtocol, phone: String, token: String) async throws -> Int {
        let created = try await register(client, phone, token: token)
        #expect(created.status == .created, "\(created.body)")
        let id = try deviceID(created)
        try await gateway.deliverAll()
        let text = try #require(twilio.messages.last?.field("Body"))
        let confirmed = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(try code(in: text))"}"#, token: token)
        #expect(confirmed.status == .ok, "\(confirmed.body)")
        return id
    }

    /// An inbound post as Twilio makes it, signed with `authToken` (nil: no signature header).
    static func inbound(_ client: any TestClientProtocol, _ fields: [(name: String, value: String)], authToken: String?) async throws -> HTTPReply {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let authToken {
            headers[HTTPField.Name("X-Twilio-Signature")!] = TwilioSignature.sign(
                url: PushGateway.publicURL.absoluteString + "/v1/sms/inbound", parameters: fields, authToken: authToken
            )
        }
        let body = TwilioStandIn.encodeForm(fields)
        return try await client.execute(uri: "/v1/sms/inbound", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            HTTPReply(status: response.status, headers: response.headers, body: String(buffer: response.body))
        }
    }

    /// An inbound post's fields, as a new message of its own (a MessageSid never posted before).
    static func fields(from: String, body: String, account: String) -> [(name: String, value: String)] {
        let sid = "SM" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return [
            ("ToCountry", "US"), ("SmsMessageSid", sid), ("NumMedia", "0"), ("From", from), ("To", TwilioStandIn.fromNumber),
            ("Body", body), ("MessageSid", sid), ("AccountSid", account), ("ApiVersion", "2010-04-01"), ("NumSegments", "1"),
        ]
    }

    @Test(arguments: TestBackend.all)
    func theCodeIsTextedRefusedWhenWrongAndConfirmed(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client async throws in
            for bad in ["6195550123", "+06195550123", "+1 619 555 0123", "+1234567", "+1234567890123456", "+1619555012a", "", "+١٦١٩٥٥٥٠١٢٣"] {
                let reply = try await Self.register(client, bad, token: ada)
                #expect(reply.status == .unprocessableContent, "\(bad)")
                #expect(reply.contentType == "application/problem+json")
                #expect((reply.object["invalidFields"] as? [String]) == ["phone"], "\(bad): \(reply.body)")
            }
            let created = try await Self.register(client, Self.number, token: ada)
            #expect(created.status == .created)
            let device = try #require(created.object["device"] as? [String: Any])
            let id = try #require(device["id"] as? Int)
            #expect(device["channel"] as? String == "sms")
            #expect(device["phone"] as? String == Self.number)
            #expect(device["confirmed"] as? Bool == false)
            #expect(device["active"] as? Bool == false)
            #expect(try await Self.register(client, Self.number, token: ada).status == .conflict, "a number once per student")

            // The job carries the device id only.
            let args = try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.sms-confirmation' AND args NOT LIKE '%6195550123%'")
            #expect(args == 1)
            try await gateway.deliverAll()
            let view = try await client.json(.get, "/v1/me/devices/\(id)", token: ada).body
            #expect(twilio.messages.count == 1, "\(twilio.requests.map { "\($0.status) \($0.path)" }) \(view)")
            let text = try #require(twilio.messages.first)
            #expect(text.authorized)
            #expect(text.path == "/2010-04-01/Accounts/\(twilio.accountSID)/Messages.json")
            #expect(text.field("To") == Self.number)
            #expect(text.field("From") == TwilioStandIn.fromNumber)
            let body = try #require(text.field("Body"))
            let code = try Self.code(in: body)
            #expect(!body.contains("http") && !body.lowercased().contains("token"), "a confirmation text carries the code only: \(body)")
            #expect(SMSText.segments(body) == 1 && SMSText.isGSMSafe(body))

            // Unconfirmed: a test notification queues nothing.
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/test", token: ada).object["queued"] as? Bool == false)
            // Another student's device is not found.
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: bob).status == .notFound)
            #expect(try await client.json(.get, "/v1/me/devices/\(id)", token: bob).status == .notFound)
            #expect(try await client.json(.delete, "/v1/me/devices/\(id)", token: bob).status == .notFound)
            let wrongCode = code == "000000" ? "111111" : "000000"
            let wrong = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(wrongCode)"}"#, token: ada)
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.object["attemptsLeft"] as? Int == EmailConfirmation.maximumAttempts - 1)
            // No link confirms an SMS device.
            #expect(try await client.json(.post, "/v1/email/confirm?token=\(String(repeating: "A", count: 43))").status == .notFound)

            let confirmed = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: ada)
            #expect(confirmed.status == .ok)
            #expect(confirmed.object["confirmed"] as? Bool == true)
            #expect(confirmed.object["active"] as? Bool == true)

            #expect(try await client.json(.post, "/v1/me/devices/\(id)/test", token: ada).object["queued"] as? Bool == true)
            try await gateway.deliverAll()
            #expect(twilio.messages.count == 2)
            let note = try #require(twilio.messages.last?.field("Body"))
            #expect(note.hasPrefix("Campus Gateway: "))
            #expect(SMSText.segments(note) <= 2 && SMSText.isGSMSafe(note))
            let delivered = try await client.json(.get, "/v1/me/devices/\(id)/notifications", token: ada)
            #expect((delivered.object["items"] as? [[String: Any]])?.first?["state"] as? String == "delivered")
        }
    }

    /// At most 3 codes per number in 24 hours, whichever accounts ask.
    @Test(arguments: TestBackend.all)
    func aNumberGetsThreeCodesADayAcrossAccounts(_ backend: TestBackend) async throws {
        let gateway = try await PushGateway.make(backend)
        defer { gateway.cleanUp() }
        let mallory = try await gateway.account("mallory", role: .student)
        let accomplice = try await gateway.account("accomplice", role: .student)
        try await gateway.withRouter { client async throws in
            let first = try await Self.register(client, Self.number, token: mallory)
            #expect(first.status == .created)
            let id = try Self.deviceID(first)
            #expect(try await client.json(.post, "/v1/me/devices/\(id)/resend-confirmation", token: mallory).status == .accepted)
            #expect(try await Self.register(client, Self.number, token: accomplice).status == .created, "the third code")
            let fourth = try await client.json(.post, "/v1/me/devices/\(id)/resend-confirmation", token: mallory)
            #expect(fourth.status == .tooManyRequests)
            #expect(fourth.object["type"] as? String == "/problems/confirmation-mail-limit")
            #expect(fourth.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 } == true)
            let other = try await gateway.account("other", role: .student)
            #expect(try await Self.register(client, Self.number, token: other).status == .tooManyRequests, "a third account, the same number")
            #expect(try await Self.register(client, "+16195550124", token: other).status == .created, "other numbers are not affected")
        }
        #expect(try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.sms-confirmation'") == 4)
        #expect(try await gateway.integer("SELECT count(*) FROM push_confirmation_sends WHERE channel = 'sms'") == 4)
    }

    /// Inbound posts: signed or refused; STOP mutes the number on every account (no text
    /// afterwards, not even a code), START unmutes it.
    @Test(arguments: TestBackend.all)
    func stopMutesTheNumberEverywhereAndStartUnmutes(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let logs = CapturedLogs()
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio), logs: logs)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        try await gateway.withRouter { client async throws in
            let adaDevice = try await Self.confirmedDevice(gateway, twilio, client, phone: Self.number, token: ada)
            let bobDevice = try await Self.confirmedDevice(gateway, twilio, client, phone: Self.number, token: bob)
            let sent = twilio.messages.count

            let stop = Self.fields(from: Self.number, body: "  stop ", account: twilio.accountSID)
            // Missing, wrong (another token, or the fields changed after signing): 403, nothing changes.
            #expect(try await Self.inbound(client, stop, authToken: nil).status == .forbidden)
            #expect(try await Self.inbound(client, stop, authToken: "not-the-token").status == .forbidden)
            var tampered = stop
            tampered[5] = ("Body", "STOP")
            var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            headers[HTTPField.Name("X-Twilio-Signature")!] = TwilioSignature.sign(
                url: PushGateway.publicURL.absoluteString + "/v1/sms/inbound", parameters: stop, authToken: twilio.authToken
            )
            let swapped = try await client.execute(
                uri: "/v1/sms/inbound", method: .post, headers: headers, body: ByteBuffer(string: TwilioStandIn.encodeForm(tampered))
            ) { $0.status }
            #expect(swapped == .forbidden)
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0)

            let good = try await Self.inbound(client, stop, authToken: twilio.authToken)
            #expect(good.status == .ok)
            #expect(good.contentType == "text/xml")
            #expect(good.body == #"<?xml version="1.0" encoding="UTF-8"?><Response></Response>"#)
            // A keyed hash (HMAC-SHA256), never the number.
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes WHERE length(recipient) = 32") == 1)

            // Muted on every account: nothing is sent to either device, nor a new code.
            for (token, id) in [(ada, adaDevice), (bob, bobDevice)] {
                #expect(try await client.json(.post, "/v1/me/devices/\(id)/test", token: token).object["queued"] as? Bool == true)
            }
            let carol = try await gateway.account("carol", role: .student)
            #expect(try await Self.register(client, Self.number, token: carol).status == .created)
            try await gateway.deliverAll()
            #expect(twilio.messages.count == sent, "a muted number gets nothing")
            let discarded = try await client.json(.get, "/v1/me/devices/\(adaDevice)/notifications", token: ada)
            #expect((discarded.object["items"] as? [[String: Any]])?.first?["state"] as? String == "discarded")

            // The owner texts START later (a START no later than the STOP would leave it standing).
            gateway.clock.advance(by: 1)
            let start = Self.fields(from: Self.number, body: "START", account: twilio.accountSID)
            #expect(try await Self.inbound(client, start, authToken: twilio.authToken).status == .ok)
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0)
            #expect(try await client.json(.post, "/v1/me/devices/\(adaDevice)/test", token: ada).object["queued"] as? Bool == true)
            try await gateway.deliverAll()
            #expect(twilio.messages.count == sent + 1)

            // Another account's post, properly signed with this token, is refused too.
            let foreign = Self.fields(from: Self.number, body: "STOP", account: "AC" + String(repeating: "f", count: 32))
            #expect(try await Self.inbound(client, foreign, authToken: twilio.authToken).status == .forbidden)
        }
        // The auth token is never logged; numbers only masked.
        let lines = logs.all
        #expect(!lines.isEmpty)
        #expect(!lines.contains { $0.contains(twilio.authToken) }, "the auth token is never logged")
        #expect(!lines.contains { $0.contains(Self.number) }, "numbers are logged masked")
    }

    /// Texts follow the student's quiet hours as every channel does: a grade (not urgent)
    /// waits for the window's end, a seat (urgent) goes at once.
    @Test(arguments: TestBackend.all)
    func quietHoursDeferTextsButNotUrgentOnes(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            let id = try await Self.confirmedDevice(gateway, twilio, client, phone: Self.number, token: ada)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            func hhmm(_ date: Date) -> String {
                let parts = calendar.dateComponents([.hour, .minute], from: date)
                return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
            }
            let now = gateway.clock.now()
            let body = #"{"quietHours": {"start": "\#(hhmm(now.addingTimeInterval(-3600)))", "end": "\#(hhmm(now.addingTimeInterval(2 * 3600)))", "timeZone": "UTC"}}"#
            #expect(try await client.json(.put, "/v1/me/push-preferences", body: body, token: ada).status == .ok)
            let sent = twilio.messages.count
            let grade = OutgoingNotification(id: "g-1", category: "grade.new", title: "New grade in CPE 458, Lab 3: 13.5/15", body: "b")
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "grade-1", grade))
            let seat = OutgoingNotification(id: "s-1", category: "seat.open", title: "CS 540-02 (class 7036): 1 seat open", body: "b", urgent: true)
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "seat-1", seat))
            try await gateway.deliverAll()
            #expect(twilio.messages.count == sent + 1, "the seat at once, the grade waits")
            #expect(twilio.messages.last?.field("Body")?.contains("class 7036") == true)
            gateway.clock.advance(by: 2 * 3600 + 120)
            try await gateway.deliverAll()
            #expect(twilio.messages.count == sent + 2, "the grade once quiet hours end")
            #expect(twilio.messages.last?.field("Body")?.contains("CPE 458") == true)
        }
    }

    /// Without a provider (no auth token to check against), every inbound post is refused.
    @Test(arguments: TestBackend.all)
    func inboundIsRefusedWithoutAProvider(_ backend: TestBackend) async throws {
        let gateway = try await PushGateway.make(backend)
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let stop = Self.fields(from: Self.number, body: "STOP", account: "AC1")
            #expect(try await Self.inbound(client, stop, authToken: "anything").status == .forbidden)
            #expect(try await Self.inbound(client, stop, authToken: "").status == .forbidden)
        }
        #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 0)
    }

    /// 429 and 500 are retried with the queue's backoff (429's Retry-After honoured); 21610 is
    /// not retried: the device is deactivated and the number muted.
    @Test(arguments: TestBackend.all)
    func retryableFailuresAreRetriedAndAStopAtTheProviderIsNot(_ backend: TestBackend) async throws {
        let twilio = try TwilioStandIn()
        defer { twilio.stop() }
        let gateway = try await PushGateway.make(backend, delivery: .init(twilio: twilio))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        try await gateway.withRouter { client async throws in
            let id = try await Self.confirmedDevice(gateway, twilio, client, phone: Self.number, token: ada)
            let note = OutgoingNotification(id: "n-1", category: "seat.open", title: "CS 540-02 (class 7036): 1 seat open", body: "b", urgent: true)

            twilio.failure = .tooManyRequests(retryAfter: 90)
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "retry-429", note))
            try await gateway.deliverAll()
            let job = try await gateway.integer("SELECT count(*) FROM jobs WHERE kind = 'push.deliver' AND state = 'retryable'")
            #expect(job == 1, "waits for another attempt")
            #expect(twilio.requests.last?.status == 429)
            // Not before its Retry-After.
            gateway.clock.advance(by: 60)
            try await gateway.deliverAll()
            #expect(twilio.requests.filter { $0.status == 429 }.count == 1, "not retried before Retry-After")

            twilio.failure = .serverError
            gateway.clock.advance(by: 31)
            try await gateway.deliverAll()
            #expect(twilio.requests.last?.status == 500, "retried once due")
            let attempts = twilio.requests.count
            twilio.failure = nil
            gateway.clock.advance(by: 3600)
            try await gateway.deliverAll()
            #expect(twilio.requests.count == attempts + 1)
            #expect(twilio.requests.last?.status == 201, "delivered once the provider is well")
            #expect(try await gateway.integer("SELECT count(*) FROM push_notifications WHERE state = 'delivered' AND unique_key = 'retry-429'") == 1)

            twilio.failure = .unsubscribed
            #expect(try await gateway.push.notify(deviceID: Int64(id), uniqueKey: "stop-21610", note))
            try await gateway.deliverAll()
            let before = twilio.requests.count
            gateway.clock.advance(by: 24 * 3600)
            try await gateway.deliverAll()
            #expect(twilio.requests.count == before, "21610 is never retried")
            #expect(try await gateway.integer("SELECT count(*) FROM push_notifications WHERE state = 'failed' AND unique_key = 'stop-21610'") == 1)
            // (The student's bearer token expired with the day that passed: read the row.)
            #expect(try await gateway.integer("SELECT count(*) FROM push_devices WHERE id = \(id) AND NOT active AND last_error LIKE '%21610%'") == 1)
            #expect(try await gateway.integer("SELECT count(*) FROM push_sms_mutes") == 1, "the number is muted on every account")
        }
    }
}
