import Auth
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

/// Review 4 (issue 47), finding 8: a term's `registrarFeedUrl` is https, plain http only to a
/// loopback registrar, refused when the term is configured (through the Catalog's admin term
/// route, on both backends: terms are stored) and again when polled; a polled feed carrying
/// Standard Webhooks headers must verify against the webhook's secrets. Finding 5: the poll is a
/// deployment call and asks for the trace context.
@Suite("Registrar feed: https, signatures, trace context")
struct RegistrarFeedSecurityTests {
    static let secret = RegistrarFeedTests.secret

    /// The Catalog's term routes on the Registration gateway's database, with Auth's tokens.
    static func termRouter(_ gateway: RegistrationGateway) -> ModuleRouter<CatalogModule> {
        ModuleRouter(gateway.catalog, authenticator: TokenAuthenticator(service: gateway.auth))
    }

    static func termBody(feedURL: String) -> String {
        #"{"name":"Fall 2018","firstDay":"2018-08-27","lastDay":"2018-12-12","timeZone":"America/Los_Angeles","seatsFrom":"registrar","registrarFeedUrl":"\#(feedURL)","registrarPollSeconds":60}"#
    }

    @Test(arguments: TestBackend.all) func aPlainHTTPFeedOffLoopbackIsRefusedWhenTheTermIsSet(_ backend: TestBackend) async throws {
        let gateway = try await RegistrarFeedTests.gateway(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("term-admin", role: .admin)
        let path = "/v1/admin/terms/\(DemoCatalog.term)"
        try await Self.termRouter(gateway).withRouter { client in
            for refused in ["http://sis.campus.edu/seats.json", "http://10.0.0.7/seats.json", "http://127.0.0.1.sis.example/seats.json"] {
                let reply = try await client.json(.put, path, body: Self.termBody(feedURL: refused), token: admin)
                #expect(reply.status == .unprocessableContent, "\(refused): \(reply.status) \(reply.body)")
                #expect(reply.contentType == "application/problem+json")
                #expect(reply.object["type"] as? String == "/problems/validation-failed", "\(reply.body)")
                #expect(reply.object["invalidFields"] as? [String] == ["registrarFeedUrl"], "\(reply.body)")
                #expect((reply.object["detail"] as? String)?.contains("https") == true, "\(reply.body)")
            }
            for accepted in ["https://sis.campus.edu/seats.json", "http://127.0.0.1:8081/seats.json", "http://[::1]:8081/seats.json", "http://localhost:8081/seats.json"] {
                let reply = try await client.json(.put, path, body: Self.termBody(feedURL: accepted), token: admin)
                #expect(reply.status == .ok, "\(accepted): \(reply.status) \(reply.body)")
            }
        }
        // What was refused was not stored: the last accepted URL is the term's.
        let stored = try await gateway.catalog.terms.term(id: DemoCatalog.term)
        #expect(stored?.registrarFeedURL?.absoluteString == "http://localhost:8081/seats.json")
    }

    @Test(arguments: TestBackend.all) func aStoredPlainHTTPFeedOffLoopbackIsNotFetched(_ backend: TestBackend) async throws {
        let recorder = RecordingClient(answer: OutboundResponse(status: 200, headers: [:], body: Data(), httpVersion: .http1_1))
        let gateway = try await RegistrarFeedTests.gateway(backend, client: recorder)
        defer { gateway.cleanUp() }
        // A term as an older server stored it, the URL never validated.
        let term = Term(
            id: DemoCatalog.term, name: "Fall 2018", firstDay: CivilDate(parsing: "2018-08-27")!, lastDay: CivilDate(parsing: "2018-12-12")!,
            timeZone: "America/Los_Angeles", seatsFrom: .registrar, registrarFeedURL: URL(string: "http://sis.campus.edu/seats.json"),
            registrarPollSeconds: 60
        )
        let polled = await gateway.registration.registrar.poll(term)
        #expect(polled.outcome.hasPrefix("failed:") && polled.outcome.contains("https"), "\(polled.outcome)")
        #expect(recorder.requests.isEmpty, "nothing fetched")
    }

    @Test(arguments: TestBackend.all) func aSignedFeedMustVerifyAndThePollAsksForTheTraceContext(_ backend: TestBackend) async throws {
        let feed = Mutex<(body: String, headers: HTTPFields)>((RegistrarFeedTests.body([(RegistrarFeedTests.full.number, 48, 40, "open", "2026-11-28T09:00:00Z")]), [:]))
        let router = Router()
        router.get("sis/seats.json") { _, _ in
            let (body, signed) = feed.withLock { $0 }
            var headers = signed
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        let registrar = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await registrar.test(.live) { server in
            let port = try #require(server.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/sis/seats.json"))
            let recorder = RecordingClient(forwardingTo: CurlHTTPClient(configuration: .init(threadCount: 1, maxRedirects: 0, allowedDestinations: .loopback)))
            let gateway = try await RegistrarFeedTests.gateway(backend, client: recorder)
            defer { gateway.cleanUp() }
            try await RegistrarFeedTests.registrarTerm(gateway, feedURL: url)

            // Signed with a secret the gateway does not hold: refused, nothing applied.
            let body = feed.withLock { $0.body }
            let now = gateway.clock.now()
            feed.withLock { $0.headers = RegistrarFeedTests.signed(body, id: "poll_1", secret: WebhookSecret.generate(), timestamp: now) }
            let forged = try await gateway.registration.registrar.pollDue()
            #expect(forged.count == 1 && forged[0].outcome.contains("signature"), "\(forged)")
            #expect(try await gateway.seats(of: RegistrarFeedTests.full.id).enrolled == 48)

            // Partly signed: refused.
            gateway.clock.advance(by: 61)
            feed.withLock { $0.headers = [HTTPField.Name("webhook-signature")!: "v1,AAAA"] }
            #expect(try await gateway.registration.registrar.pollDue().first?.outcome.contains("lacks") == true)
            #expect(try await gateway.seats(of: RegistrarFeedTests.full.id).enrolled == 48)

            // Signed with the webhook's secret: applied.
            gateway.clock.advance(by: 61)
            let later = gateway.clock.now()
            feed.withLock { $0.headers = RegistrarFeedTests.signed(body, id: "poll_2", timestamp: later) }
            let applied = try await gateway.registration.registrar.pollDue()
            #expect(applied.first?.outcome.hasPrefix("ok: 1 applied") == true, "\(applied)")
            #expect(try await gateway.seats(of: RegistrarFeedTests.full.id).enrolled == 40)

            // Every poll was a deployment call: the trace context goes along when tracing is on.
            let requests = recorder.requests
            #expect(requests.count == 3)
            let everyPollAsks = requests.allSatisfy { $0.propagatesTraceContext }
            #expect(everyPollAsks, "\(requests)")
        }
    }
}

/// An ``HTTPClient`` that records each request, then answers it itself or forwards it.
final class RecordingClient: HTTPClient, Sendable {
    private let recorded = Mutex<[OutboundRequest]>([])
    private let next: (any HTTPClient)?
    private let answer: OutboundResponse?

    init(forwardingTo next: any HTTPClient) {
        self.next = next
        self.answer = nil
    }

    init(answer: OutboundResponse) {
        self.next = nil
        self.answer = answer
    }

    var requests: [OutboundRequest] { recorded.withLock { $0 } }

    func execute(_ request: OutboundRequest) async throws -> OutboundResponse {
        recorded.withLock { $0.append(request) }
        if let next { return try await next.execute(request) }
        return answer!
    }
}
