import Foundation
import GatewayCore
import Synchronization
import TestSupport
import Testing

/// The registrar side of the SQLite crash drill: a registrar term with small classes, a student
/// who watches them all by SMS (a ``TwilioStandIn`` in this process), and a registrar that pushes
/// signed seat-status deliveries while the servers are killed, re-sending each one (same
/// `webhook-id`) until a server acknowledges it, as a registrar's retries do. Each class goes
/// full, open, full, open: two open events per class whatever the kills. ``check(kills:)`` then
/// holds the outbox and the texts to the rules: each open event texted at least once, and a
/// class texted more often than it opened only when a kill came between the texts.
final class RegistrarDrill: Sendable {
    static let term = "2026-registrar"
    static let classCount = 6
    static let phone = "+16195550177"
    /// The states each class goes through, in order: (enrolled of 3 seats).
    static let sequence = [3, 2, 3, 2]
    static var openEvents: Int { zip(sequence, sequence.dropFirst()).filter { $0 == 3 && $1 < 3 }.count }

    let twilio: TwilioStandIn
    let secret = WebhookSecret.generate()
    let directory: URL
    private let state = Mutex<(classes: [Int64: String], deviceID: Int64, delivered: Int)>(([:], 0, 0))

    init(directory: URL) throws {
        twilio = try TwilioStandIn(lifetime: .seconds(900))
        self.directory = directory
        try Data(secret.displayValue.utf8).write(to: secretFile)
        try Data(twilio.authToken.utf8).write(to: tokenFile)
    }

    var secretFile: URL { directory.appendingPathComponent("registrar-secrets") }
    var tokenFile: URL { directory.appendingPathComponent("sms-token") }

    /// What `gateway serve` needs for it: the secret file, the SMS provider, the public URL.
    var environment: [String: String] {
        [
            "GATEWAY_REGISTRAR_WEBHOOK_SECRET_FILE": secretFile.path, "GATEWAY_SMS_API_URL": twilio.baseURL.absoluteString,
            "GATEWAY_SMS_ACCOUNT_SID": twilio.accountSID, "GATEWAY_SMS_AUTH_TOKEN_FILE": tokenFile.path,
            "GATEWAY_SMS_FROM": TwilioStandIn.fromNumber, "GATEWAY_PUBLIC_URL": "https://gateway.example.edu",
        ]
    }

    func stop() { twilio.stop() }

    /// The registrar term, its classes, and a watcher of its own (no other notice reaches their
    /// phone) whose phone is confirmed by the texted code.
    func setUp(port: Int, admin: String) async throws {
        let redID = CrashDrillSlowTests.redID(9000)
        let added = await Drill.send(
            port: port, "POST", "/registration/addstudent",
            body: #"{"firstname":"Drill","lastname":"Watcher","redid":"\#(redID)","password":"\#(CrashDrillSlowTests.password)","email":"w@sdsu.edu"}"#
        )
        try #require(added?.ok == "Student Added", "the registrar watcher: \(added?.body ?? "no answer")")
        let token = try #require(await Drill.token(port: port, redID, CrashDrillSlowTests.password))
        let term = await Drill.send(
            port: port, "PUT", "/v1/admin/terms/\(Self.term)",
            body: #"{"name":"Registrar drill","firstDay":"2026-01-20","lastDay":"2026-05-15","timeZone":"America/Los_Angeles","seatsFrom":"registrar"}"#,
            token: admin
        )
        try #require(term?.status == 201 || term?.status == 200, "the registrar term: \(term?.body ?? "no answer")")
        var classes: [Int64: String] = [:]
        for n in 0..<Self.classCount {
            let number = "4800\(n)"
            let made = await Drill.send(
                port: port, "POST", "/v1/admin/registration/classes",
                body: #"{"term":"\#(Self.term)","subject":"CS","course":"540","section":"R\#(n)","scheduleNumber":"\#(number)","seats":3}"#, token: admin
            )
            classes[Int64(try #require(made?.object["id"] as? Int, "registrar class: \(made?.body ?? "no answer")"))] = number
        }
        let device = await Drill.send(port: port, "POST", "/v1/me/devices", body: #"{"channel":"sms","phone":"\#(Self.phone)"}"#, token: token)
        let deviceID = Int64(try #require((device?.object["device"] as? [String: Any])?["id"] as? Int, "the SMS device: \(device?.body ?? "no answer")"))
        let code = try await confirmationCode()
        let confirmed = await Drill.send(port: port, "POST", "/v1/me/devices/\(deviceID)/confirm", body: #"{"code":"\#(code)"}"#, token: token)
        try #require(confirmed?.status == 200, "confirmed: \(confirmed?.body ?? "no answer")")
        for id in classes.keys.sorted() {
            let watch = await Drill.send(port: port, "POST", "/v1/me/seat-alerts", body: #"{"classId":\#(id),"rearm":true}"#, token: token)
            try #require(watch?.status == 201, "watching \(id): \(watch?.body ?? "no answer")")
        }
        state.withLock { $0.classes = classes; $0.deviceID = deviceID }
    }

    /// The six-digit code of the confirmation text (it is sent by a job: waited for).
    private func confirmationCode() async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let code = twilio.messages.compactMap { $0.field("Body") }
                .compactMap { body in body.split(whereSeparator: { !$0.isNumber }).first { $0.count == 6 }.map(String.init) }.first
            if let code { return code }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServingGateway.NotServing(description: "no confirmation text reached the Twilio stand-in in 30 s")
    }

    /// The registrar's pushes during the load: each step of ``sequence`` for every class, one
    /// delivery per class and step, re-sent with its id until a server answers 200.
    func deliveries(target: CrashDrillSlowTests.Target) async {
        let classes = state.withLock { $0.classes }
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        for (step, enrolled) in Self.sequence.enumerated() {
            for (id, number) in classes.sorted(by: { $0.key < $1.key }) {
                let asOf = start.addingTimeInterval(Double(step) * 60).formatted(.iso8601)
                let body = #"{"term":"\#(Self.term)","updates":[{"scheduleNumber":"\#(number)","seats":3,"enrolled":\#(enrolled),"status":"open","asOf":"\#(asOf)"}]}"#
                let webhookID = "drill-\(id)-\(step)"
                // The registrar keeps trying, through kills, until a server takes it.
                while true {
                    let seconds = Int64(Date().timeIntervalSince1970)
                    let headers = [
                        "webhook-id": webhookID, "webhook-timestamp": String(seconds),
                        "webhook-signature": WebhookSignature.sign(id: webhookID, timestamp: seconds, body: Data(body.utf8), secret: secret.bytes),
                    ]
                    if let reply = await target.send("POST", "/v1/registrar/seat-status", body: body, headers: headers), reply.status == 200 { break }
                    if !target.running && target.port == 0 { return }
                }
                state.withLock { $0.delivered += 1 }
                // Spread over the load, so the kills fall among them.
                try? await Task.sleep(for: .milliseconds(Int.random(in: 150...700)))
            }
        }
    }

    /// With a server running after the load: every delivery was taken, every open event's
    /// notification delivered, each class texted at least once per open event, and more only
    /// across a kill.
    func check(kills: [ContinuousClock.Instant], rows: @Sendable (String) async throws -> [[String]]) async throws -> String {
        let (classes, deviceID, delivered) = state.withLock { ($0.classes, $0.deviceID, $0.delivered) }
        #expect(delivered == classes.count * Self.sequence.count, "the registrar's deliveries were all taken: \(delivered)")
        let settled = try await eventually(seconds: 120) {
            let pending = try await rows("SELECT count(*) FROM push_notifications WHERE device_id = \(deviceID) AND state = 'pending'").first?.first
            let opens = try await rows("SELECT count(*) FROM push_notifications WHERE device_id = \(deviceID) AND category = 'seat.open'").first?.first
            return pending == "0" && opens == String(classes.count * Self.openEvents)
        }
        let outbox = try await rows("SELECT category, state, count(*) FROM push_notifications WHERE device_id = \(deviceID) GROUP BY category, state")
        #expect(settled, "one seat.open notification per open event, all sent: \(outbox)")
        #expect(outbox.allSatisfy { $0.count < 2 || $0[1] == "delivered" }, "every text delivered: \(outbox)")
        var texts = 0, redelivered = 0
        for (id, _) in classes {
            let arrivals = twilio.messages.filter { $0.field("To") == Self.phone && ($0.field("Body") ?? "").contains("(class \(id))") }.map(\.arrived).sorted()
            texts += arrivals.count
            #expect(arrivals.count >= Self.openEvents, "class \(id): \(arrivals.count) texts for \(Self.openEvents) open events")
            guard arrivals.count > Self.openEvents else { continue }
            // A text sent, then the server died before recording it: a kill just after it.
            let extra = arrivals.count - Self.openEvents
            let acrossKills = zip(arrivals, arrivals.dropFirst()).filter { first, again in
                kills.contains { $0 > first - .milliseconds(500) && $0 < first + .seconds(3) && $0 < again }
            }.count
            #expect(acrossKills >= extra, "class \(id) texted \(arrivals.count) times for \(Self.openEvents) open events with \(acrossKills) kills between")
            redelivered += extra
        }
        return "registrar: \(delivered) signed deliveries taken, \(classes.count * Self.openEvents) open events, \(texts) texts (\(redelivered) resent across a kill)"
    }
}
