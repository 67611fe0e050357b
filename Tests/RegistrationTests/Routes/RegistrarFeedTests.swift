import AuthTestSupport
import Catalog
import Foundation
import GatewayCore
import HTTPClient
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Registration
import Synchronization
import TestSupport
import Testing

/// A term whose seats come from the registrar, through the real router on both backends: the
/// signed webhook (`POST /v1/registrar/seat-status`), stale, repeated and unknown updates, the
/// open and close events they cause, registration refused in v1 and the SDSU protocol, and the
/// poller against a registrar on loopback, refused by the SSRF guard without the allow-list.
@Suite("Registrar seat feed")
struct RegistrarFeedTests {
    static let secret = WebhookSecret.generate()
    static let rotated = WebhookSecret.generate()
    /// Class 7036 (full, 48 of 48) and 7030 (22 of 35) in the demo term.
    static let full: (id: Int64, number: String) = (7036, "21073")
    static let open: (id: Int64, number: String) = (7030, DemoFixtureNumbers.of(7030))

    static func gateway(_ backend: TestBackend, client: (any HTTPClient)? = nil) async throws -> RegistrationGateway {
        let gateway = try await RegistrationGateway.registration(
            backend, registrarFeed: RegistrarFeedSettings(webhookSecrets: [secret, rotated], client: client)
        )
        try await registrarTerm(gateway)
        return gateway
    }

    /// Makes the demo term a registrar term.
    static func registrarTerm(_ gateway: RegistrationGateway, feedURL: URL? = nil) async throws {
        let term = Term(
            id: DemoCatalog.term, name: "Fall 2018", firstDay: CivilDate(parsing: "2018-08-27")!, lastDay: CivilDate(parsing: "2018-12-12")!,
            timeZone: "America/Los_Angeles", seatsFrom: .registrar, registrarFeedURL: feedURL, registrarPollSeconds: feedURL == nil ? nil : 60
        )
        _ = try await gateway.catalog.terms.put(id: term.id, term)
    }

    static func body(term: String = DemoCatalog.term, _ updates: [(number: String, seats: Int, enrolled: Int, status: String, asOf: String)]) -> String {
        let rows = updates.map { #"{"scheduleNumber":"\#($0.number)","seats":\#($0.seats),"enrolled":\#($0.enrolled),"status":"\#($0.status)","asOf":"\#($0.asOf)"}"# }
        return #"{"term":"\#(term)","updates":[\#(rows.joined(separator: ","))]}"#
    }

    /// Standard Webhooks headers for `body`, signed with `secret` at `timestamp`.
    static func signed(_ body: String, id: String, secret: WebhookSecret = secret, timestamp: Date) -> HTTPFields {
        let seconds = Int64(timestamp.timeIntervalSince1970)
        var headers = HTTPFields()
        headers[HTTPField.Name("webhook-id")!] = id
        headers[HTTPField.Name("webhook-timestamp")!] = String(seconds)
        headers[HTTPField.Name("webhook-signature")!] = WebhookSignature.sign(id: id, timestamp: seconds, body: Data(body.utf8), secret: secret.bytes)
        return headers
    }

    static func post(_ client: some TestClientProtocol, _ body: String, headers: HTTPFields) async throws -> HTTPReply {
        try await client.json(.post, "/v1/registrar/seat-status", body: body, headers: headers)
    }

    static func type(_ reply: HTTPReply) -> String? { reply.object["type"] as? String }

    @Test(arguments: TestBackend.all) func onlyDeliveriesSignedWithACurrentSecretApplyAndEachIdOnce(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let now = gateway.clock.now()
        let first = Self.body([(Self.full.number, 50, 45, "open", "2026-11-28T09:00:00Z")])
        try await gateway.withRouter { client in
            let unsigned = try await Self.post(client, first, headers: [:])
            #expect(unsigned.status == .unauthorized && Self.type(unsigned) == "/problems/registrar-signature")
            let wrong = try await Self.post(client, first, headers: Self.signed(first, id: "msg_1", secret: .generate(), timestamp: now))
            #expect(wrong.status == .unauthorized)
            let old = try await Self.post(client, first, headers: Self.signed(first, id: "msg_1", timestamp: now.addingTimeInterval(-301)))
            #expect(old.status == .unauthorized && (old.object["detail"] as? String)?.contains("too far") == true)
            var tampered = Self.signed(first, id: "msg_1", timestamp: now)
            tampered[HTTPField.Name("webhook-id")!] = "msg_2"
            #expect(try await Self.post(client, first, headers: tampered).status == .unauthorized, "the id is signed too")
            #expect(try await gateway.seats(of: Self.full.id).seats == 48, "nothing refused changed anything")

            let applied = try await Self.post(client, first, headers: Self.signed(first, id: "msg_1", timestamp: now))
            #expect(applied.status == .ok)
            #expect(applied.object["applied"] as? Int == 1 && applied.object["duplicate"] as? Bool == false)
            let seats = try await gateway.seats(of: Self.full.id)
            #expect(seats.seats == 50 && seats.enrolled == 45 && seats.status == .open)

            // The same id again, even with another (validly signed) body, is acknowledged only.
            let later = Self.body([(Self.full.number, 50, 49, "open", "2026-11-28T10:00:00Z")])
            let replay = try await Self.post(client, later, headers: Self.signed(later, id: "msg_1", timestamp: now))
            #expect(replay.status == .ok && replay.object["duplicate"] as? Bool == true && replay.object["applied"] as? Int == 0)
            #expect(try await gateway.seats(of: Self.full.id).enrolled == 45)

            // The rotated secret signs as well as the first.
            let rotated = try await Self.post(client, later, headers: Self.signed(later, id: "msg_2", secret: Self.rotated, timestamp: now))
            #expect(rotated.status == .ok && rotated.object["applied"] as? Int == 1)
            #expect(try await gateway.seats(of: Self.full.id).enrolled == 49)
        }
    }

    @Test(arguments: TestBackend.all) func staleRepeatedAndUnknownUpdatesChangeNothing(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let now = gateway.clock.now()
        try await gateway.withRouter { client in
            let current = Self.body([(Self.open.number, 35, 30, "open", "2026-11-28T09:00:00.500Z"), ("99999", 10, 1, "open", "2026-11-28T09:00:00Z")])
            let reply = try await Self.post(client, current, headers: Self.signed(current, id: "a", timestamp: now))
            #expect(reply.status == .ok && reply.object["applied"] as? Int == 1)
            #expect(reply.object["unknownSections"] as? [String] == ["99999"])

            // Older, then as old: ignored, whatever they say.
            let older = Self.body([(Self.open.number, 35, 10, "open", "2026-11-28T08:59:59Z")])
            let stale = try await Self.post(client, older, headers: Self.signed(older, id: "b", timestamp: now))
            #expect(stale.object["stale"] as? Int == 1 && stale.object["applied"] as? Int == 0)
            let again = Self.body([(Self.open.number, 35, 12, "closed", "2026-11-28T09:00:00.500Z")])
            #expect(try await Self.post(client, again, headers: Self.signed(again, id: "c", timestamp: now)).object["stale"] as? Int == 1)
            let seats = try await gateway.seats(of: Self.open.id)
            #expect(seats.enrolled == 30 && seats.status == .open)

            // Out of order within one delivery: the newest wins.
            let shuffled = Self.body([(Self.open.number, 35, 33, "open", "2026-11-28T09:05:00Z"), (Self.open.number, 35, 31, "open", "2026-11-28T09:01:00Z")])
            let both = try await Self.post(client, shuffled, headers: Self.signed(shuffled, id: "d", timestamp: now))
            #expect(both.object["applied"] as? Int == 1 && both.object["stale"] as? Int == 1)
            #expect(try await gateway.seats(of: Self.open.id).enrolled == 33)

            // Bounds and field errors: 422 naming the field, nothing applied.
            let tooMany = Self.body(Array(repeating: (Self.open.number, 35, 1, "open", "2026-11-28T10:00:00Z"), count: RegistrarSeatFeed.maximumUpdates + 1))
            let bounded = try await Self.post(client, tooMany, headers: Self.signed(tooMany, id: "e", timestamp: now))
            #expect(bounded.status == .unprocessableContent && (bounded.object["invalidFields"] as? [String]) == ["/updates"])
            let negative = Self.body([(Self.open.number, -1, 1, "open", "2026-11-28T10:00:00Z")])
            let field = try await Self.post(client, negative, headers: Self.signed(negative, id: "f", timestamp: now))
            #expect(field.status == .unprocessableContent)
            #expect((field.object["errors"] as? [[String: String]])?.first?["pointer"] == "/updates/0/seats")
            let badStatus = Self.body([(Self.open.number, 35, 1, "full", "2026-11-28T10:00:00Z")])
            let status = try await Self.post(client, badStatus, headers: Self.signed(badStatus, id: "g", timestamp: now))
            #expect((status.object["errors"] as? [[String: String]])?.first?["pointer"] == "/updates/0/status")
            let unknownTerm = Self.body(term: "1999-fall", [(Self.open.number, 35, 1, "open", "2026-11-28T10:00:00Z")])
            #expect(Self.type(try await Self.post(client, unknownTerm, headers: Self.signed(unknownTerm, id: "h", timestamp: now))) == "/problems/term-not-found")
            #expect(try await gateway.seats(of: Self.open.id).enrolled == 33, "no refused delivery changed anything")

            // The size bound holds before anything is read.
            let huge = String(repeating: " ", count: RegistrarSeatFeed.maximumBodyBytes + 1)
            #expect(try await Self.post(client, huge, headers: [:]).status == .contentTooLarge)
        }
        // A term whose seats are the gateway's takes no registrar updates.
        _ = try await gateway.catalog.terms.put(id: DemoCatalog.term, Term(
            id: DemoCatalog.term, name: "Fall 2018", firstDay: CivilDate(parsing: "2018-08-27")!, lastDay: CivilDate(parsing: "2018-12-12")!,
            timeZone: "America/Los_Angeles"
        ))
        try await gateway.withRouter { client in
            let body = Self.body([(Self.open.number, 35, 1, "open", "2026-11-28T11:00:00Z")])
            let refused = try await Self.post(client, body, headers: Self.signed(body, id: "i", timestamp: now))
            #expect(refused.status == .conflict && Self.type(refused) == "/problems/term-not-at-registrar")
        }
    }

    @Test(arguments: TestBackend.all) func aSeatOpeningAtTheRegistrarIsOneOpenEventAndClosingOneCloseEvent(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let now = gateway.clock.now()
        try await gateway.withRouter { client in
            var sent = 0
            func send(_ enrolled: Int, _ status: String, minute: Int) async throws {
                sent += 1
                let body = Self.body([(Self.full.number, 48, enrolled, status, String(format: "2026-11-28T09:%02d:00Z", minute))])
                #expect(try await Self.post(client, body, headers: Self.signed(body, id: "m\(sent)", timestamp: now)).status == .ok)
            }
            try await send(48, "open", minute: 0)
            #expect(try await gateway.jobs(kind: "push.class-opened").isEmpty, "still full")
            try await send(47, "open", minute: 1)
            #expect(try await gateway.jobs(kind: "push.class-opened").count == 1)
            try await send(46, "open", minute: 2)
            #expect(try await gateway.jobs(kind: "push.class-opened").count == 1, "already open: no second event")
            try await send(46, "closed", minute: 3)
            #expect(try await gateway.jobs(kind: "push.class-closed").count == 1)
            let listing = try #require(try await gateway.registration.catalog.classListing(id: Self.full.id))
            #expect(listing.seats.status == .closed && listing.seats.openSeats == 0 && CatalogViews.Class(listing).status == "closed")
            try await send(46, "open", minute: 4)
            #expect(try await gateway.jobs(kind: "push.class-opened").count == 2, "open again after a close")

            // The history, newest first, for admins only.
            let admin = try await gateway.account("registrar-admin", role: .admin)
            let student = try await gateway.account("registrar-student", role: .student)
            let history = try await client.json(.get, "/v1/admin/registration/classes/\(Self.full.id)/seat-history?limit=2", token: admin)
            let items = try #require(history.object["items"] as? [[String: Any]])
            #expect(items.count == 2 && items[0]["status"] as? String == "open" && items[1]["status"] as? String == "closed")
            #expect(items[0]["via"] as? String == "webhook")
            #expect(try await client.json(.get, "/v1/admin/registration/classes/\(Self.full.id)/seat-history", token: student).status == .forbidden)
            #expect(try await client.json(.get, "/v1/admin/registration/classes/999999/seat-history", token: admin).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.all) func aRegistrarTermRefusesRegistrationInV1AndTheSDSUProtocol(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let token = try await gateway.account("reg-ada", role: .student)
        try await gateway.student("123456003", password: "password")
        try await gateway.withRouter { client in
            let profile = try await client.json(
                .put, "/v1/me/registration/profile",
                body: #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#, token: token
            )
            #expect(profile.status == .ok)
            let enroll = try await client.json(.post, "/v1/me/registration/enrollments", body: "{\"classId\":\(Self.open.id)}", token: token)
            #expect(enroll.status == .conflict && Self.type(enroll) == "/problems/registration-at-registrar")
            let line = try await client.json(.post, "/v1/me/registration/waitlist", body: "{\"classId\":\(Self.full.id)}", token: token)
            #expect(line.status == .conflict && Self.type(line) == "/problems/registration-at-registrar")
            let credentials = "redid=123456003&password=password"
            let sdsu = try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=\(Self.open.id)")
            #expect(sdsu.status == .ok && sdsu.body == #"{"error":"Registration for this term is at the registrar"}"#)
            let waitlist = try await client.json(.get, "/registration/waitlistclass?\(credentials)&courseid=\(Self.full.id)")
            #expect(waitlist.body == #"{"error":"Registration for this term is at the registrar"}"#)
            // Reading works as before.
            #expect(try await client.json(.get, "/registration/classdetails?classid=\(Self.open.id)").status == .ok)
        }
        #expect(try await gateway.seats(of: Self.open.id).enrolled == 22)
    }

    @Test(arguments: TestBackend.all) func thePollerAppliesAPublishedFeedAndTheGuardRefusesPrivateAddresses(_ backend: TestBackend) async throws {
        let feed = Mutex<String>(Self.body([(Self.full.number, 48, 40, "open", "2026-11-28T09:00:00Z")]))
        let fetches = Atomic<Int>(0)
        let router = Router()
        router.get("sis/seats.json") { _, _ in
            fetches.add(1, ordering: .relaxed)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: feed.withLock { $0 })))
        }
        let registrar = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await registrar.test(.live) { server in
            let port = try #require(server.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/sis/seats.json"))

            // Without the allow-list, loopback is refused: nothing fetched, nothing applied.
            let guarded = try await Self.gateway(backend, client: CurlHTTPClient(configuration: .init(threadCount: 1, maxRedirects: 0)))
            defer { guarded.cleanUp() }
            try await Self.registrarTerm(guarded, feedURL: url)
            let refused = try await guarded.registration.registrar.pollDue()
            #expect(refused.count == 1 && refused[0].outcome.contains("not allowed"), "\(refused)")
            #expect(fetches.load(ordering: .relaxed) == 0)
            #expect(try await guarded.seats(of: Self.full.id).enrolled == 48)

            // With it, the feed is applied as a webhook's would be, once per interval.
            let allowed = try await Self.gateway(backend, client: CurlHTTPClient(configuration: .init(threadCount: 1, maxRedirects: 0, allowedDestinations: .loopback)))
            defer { allowed.cleanUp() }
            try await Self.registrarTerm(allowed, feedURL: url)
            let polled = try await allowed.registration.registrar.pollDue()
            #expect(polled.count == 1 && polled[0].outcome.hasPrefix("ok: 1 applied"), "\(polled)")
            #expect(try await allowed.seats(of: Self.full.id).enrolled == 40)
            #expect(try await allowed.jobs(kind: "push.class-opened").count == 1)
            #expect(try await allowed.registration.registrar.pollDue().isEmpty, "not due again before its interval")
            allowed.clock.advance(by: 61)
            feed.withLock { $0 = Self.body([(Self.full.number, 48, 48, "open", "2026-11-28T09:10:00Z")]) }
            #expect(try await allowed.registration.registrar.pollDue().first?.outcome.hasPrefix("ok: 1 applied") == true)
            #expect(try await allowed.seats(of: Self.full.id).enrolled == 48)
            #expect(try await allowed.jobs(kind: "push.class-closed").count == 1)
            let history = try await allowed.registration.registrar.history(classID: Self.full.id, limit: 10)
            #expect(history.map(\.enrolled) == [48, 40] && history.allSatisfy { $0.via == "poll" })

            // A feed for another term is refused, and recorded so.
            allowed.clock.advance(by: 61)
            feed.withLock { $0 = Self.body(term: "2019-spring", [(Self.full.number, 48, 1, "open", "2026-11-28T09:20:00Z")]) }
            #expect(try await allowed.registration.registrar.pollDue().first?.outcome.contains("not '\(DemoCatalog.term)'") == true)
            #expect(try await allowed.seats(of: Self.full.id).enrolled == 48)
        }
    }
}

/// The demo fixtures' schedule numbers (`DemoFixtures.scheduleNumber(of:)`).
enum DemoFixtureNumbers {
    static func of(_ id: Int64) -> String { String(21037 + id - 7000) }
}
