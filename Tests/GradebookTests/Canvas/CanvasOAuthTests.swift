import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
@testable import Gradebook
import GradebookSimulator
import GradebookTestSupport
import HTTPTypes
import HummingbirdTesting
import Jobs
import NIOCore
import NIOFoundationEssentialsCompat
import Storage
import Testing
import TestSupport

/// Connecting Canvas with the campus's developer key (OAuth2), through the real router on both
/// backends, against the Canvas stand-in: the browser-bound flow to a stored account, a flow
/// finished in another browser, a declined one, an expired access token refreshed once, a
/// refused refresh token, and the token revoked when the account is forgotten.
@Suite("Canvas OAuth2 through the gateway")
struct CanvasOAuthTests {
    static let publicURL = URL(string: "https://gateway.example.edu/")!
    static let key = CanvasSimulator.DeveloperKey.demo

    struct World {
        let gateway: GradebookGateway
        let canvas: CanvasSimulator
        let ada: String
        let client: any TestClientProtocol
        let canvasClient: any TestClientProtocol
    }

    static func with(_ backend: TestBackend, _ body: @Sendable @escaping (World) async throws -> Void) async throws {
        let canvas = CanvasSimulator()
        try await InProcessCanvas.with(canvas) { origin, canvasClient in
            let gateway = try await GradebookGateway.make(backend, publicURL: Self.publicURL)
            defer { gateway.cleanUp() }
            _ = try await gateway.module.sources.put(InProcessCanvas.source(origin, developerKey: Self.key), clientSecret: Self.key.secret)
            let ada = try await gateway.account("ada", role: .student)
            try await gateway.withLiveServer { client in
                try await body(World(gateway: gateway, canvas: canvas, ada: ada, client: client, canvasClient: canvasClient))
            }
        }
    }

    /// `path?query` of an absolute URL (what a browser asks of that host).
    static func target(_ location: String) throws -> String {
        let url = try #require(URL(string: location))
        return url.path + (url.query.map { "?\($0)" } ?? "")
    }

    /// The app's request for an authorization URL, as `token`'s student.
    static func begin(_ world: World, token: String? = nil, body: String = #"{"sourceId": 7}"#) async throws -> String {
        let begun = try await world.client.execute(
            uri: "/v1/me/gradebook-accounts/oauth", method: .post,
            headers: [.authorization: "Bearer \(token ?? world.ada)", .contentType: "application/json"], body: ByteBuffer(string: body)
        ) { ($0.status, String(buffer: $0.body)) }
        #expect(begun.0 == .ok, "\(begun.1)")
        let object = try JSONSerialization.jsonObject(with: Data(begun.1.utf8)) as? [String: Any]
        let authorization = try #require(object?["authorizationUrl"] as? String)
        #expect(authorization.hasPrefix("https://gateway.example.edu/v1/gradebook/oauth/start?ticket="))
        return authorization
    }

    /// One flow as a browser runs it: the app's request, the start address (its cookie kept
    /// unless `sameBrowser` is false), Canvas, and the callback. Answers where the browser lands.
    static func land(_ world: World, sameBrowser: Bool = true, authorization given: String? = nil) async throws -> String {
        let authorization: String
        if let given { authorization = given } else { authorization = try await begin(world) }

        let start = try await world.client.execute(uri: try target(authorization), method: .get) { $0 }
        #expect(start.status == .found)
        let cookie = try #require(start.headers[.setCookie])
        #expect(cookie.contains("HttpOnly") && cookie.contains("Secure") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/v1/gradebook/oauth"))
        let toCanvas = try #require(start.headers[.location])
        let query = try #require(URLComponents(string: toCanvas)?.queryItems)
        #expect(query.first { $0.name == "client_id" }?.value == Self.key.id)
        #expect(query.first { $0.name == "redirect_uri" }?.value == "https://gateway.example.edu/v1/gradebook/oauth/callback")
        #expect(!toCanvas.contains(Self.key.secret), "the secret never travels through the browser")

        let atCanvas = try await world.canvasClient.execute(uri: try target(toCanvas), method: .get) { $0 }
        #expect(atCanvas.status == .found)
        let back = try #require(atCanvas.headers[.location])
        var headers: HTTPFields = [:]
        if sameBrowser { headers[.cookie] = String(cookie.prefix { $0 != ";" }) }
        let landed = try await world.client.execute(uri: try target(back), method: .get, headers: headers) { $0 }
        #expect(landed.status == .seeOther)
        #expect(landed.headers[.setCookie]?.contains("Max-Age=0") == true, "the binding is cleared")
        return try #require(landed.headers[.location])
    }

    /// The `#canvas-connect=` code a landing carries.
    static func completionCode(_ landed: String) throws -> String {
        let marker = "#canvas-connect="
        let range = try #require(landed.range(of: marker), "landed at \(landed)")
        return String(landed[range.upperBound...])
    }

    /// The signed-in app completing a connection: the status and the body.
    static func complete(_ world: World, code: String, token: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await world.client.execute(
            uri: "/v1/me/gradebook-accounts/oauth/complete", method: .post,
            headers: [.authorization: "Bearer \(token ?? world.ada)", .contentType: "application/json"],
            body: ByteBuffer(string: #"{"code": "\#(code)"}"#)
        ) { ($0.status, (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]) }
    }

    /// The whole connection by its owner: the browser's part, then the app completing it.
    /// Answers where the browser landed, or `connected` once the account is stored.
    static func connect(_ world: World, sameBrowser: Bool = true) async throws -> String {
        let landed = try await land(world, sameBrowser: sameBrowser)
        guard landed.contains("#canvas-connect=") else { return landed }
        #expect(landed.hasPrefix("https://gateway.example.edu/#canvas-connect="), "\(landed)")
        let (status, body) = try await complete(world, code: try completionCode(landed))
        #expect(status == .created, "\(body)")
        #expect(body["canvasUserId"] as? String == "5001")
        return "canvas=connected"
    }

    static func accounts(_ world: World) async throws -> [[String: Any]] {
        try await world.client.execute(uri: "/v1/me/gradebook-accounts", method: .get, headers: [.authorization: "Bearer \(world.ada)"]) {
            (try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])?["items"] as? [[String: Any]] ?? []
        }
    }

    static func grades(_ world: World) async throws -> [String: Any] {
        try await world.client.execute(uri: "/v1/me/grades?refresh=1", method: .get, headers: [.authorization: "Bearer \(world.ada)"]) {
            let items = (try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any])?["items"] as? [[String: Any]]
            return items?.first ?? [:]
        }
    }

    @Test(arguments: TestBackend.all) func theBrowserBoundFlowStoresAnAccountThatReadsGrades(_ backend: TestBackend) async throws {
        try await Self.with(backend) { world in
            let landed = try await Self.connect(world)
            #expect(landed == "canvas=connected")
            let accounts = try await Self.accounts(world)
            #expect(accounts.count == 1)
            #expect(accounts.first?["username"] as? String == "5001")
            #expect(accounts.first?["status"] as? String == "ok")
            let item = try await Self.grades(world)
            #expect(item["status"] as? String == "ok")
            #expect((item["courses"] as? [Any])?.count == 4)
            #expect(world.canvas.oauth.tokenRequests == ["authorization_code"])
            // The same Canvas user again renews the account: still one.
            #expect(try await Self.connect(world) == "canvas=connected")
            #expect(try await Self.accounts(world).count == 1)
        }
    }

    /// Student A sends their authorization link to student V; V approves at Canvas. V's Canvas
    /// must never be stored under A: the grant waits for the account that began the flow, V's
    /// app completing it gets 404 and the grant is revoked, and A can't complete it after.
    @Test(arguments: TestBackend.all) func aLinkSentToAnotherStudentNeverAttachesTheirCanvas(_ backend: TestBackend) async throws {
        try await Self.with(backend) { world in
            let victim = try await world.gateway.account("vera", role: .student)
            let sent = try await Self.begin(world)
            let landed = try await Self.land(world, authorization: sent)
            let code = try Self.completionCode(landed)
            #expect(try await Self.accounts(world).isEmpty, "the callback stores nothing by itself")
            let (status, body) = try await Self.complete(world, code: code, token: victim)
            #expect(status == .notFound, "\(body)")
            #expect(world.canvas.oauth.revocations == 1, "the grant is revoked at Canvas")
            #expect(try await Self.complete(world, code: code).0 == .notFound, "and dropped: the sender can't complete it either")
            #expect(try await Self.accounts(world).isEmpty)

            // The start address works once.
            let once = try await Self.begin(world)
            let target = try Self.target(once)
            #expect(try await world.client.execute(uri: target, method: .get) { $0.status } == .found)
            let again = try await world.client.execute(uri: target, method: .get) { ($0.status, String(buffer: $0.body)) }
            #expect(again.0 == .unprocessableContent && again.1.contains("once"), "\(again)")

            // A code completes once, and not after ten minutes.
            let late = try Self.completionCode(try await Self.land(world))
            world.gateway.clock.advance(by: 601)
            #expect(try await Self.complete(world, code: late).0 == .notFound)
            #expect(try await Self.complete(world, code: "not-a-code-at-all-xyz").0 == .notFound)
            #expect(try await Self.accounts(world).isEmpty)
        }
    }

    @Test(arguments: TestBackend.all) func aFlowLandsAtItsReturnToAndOffSiteOnesAreRefused(_ backend: TestBackend) async throws {
        try await Self.with(backend) { world in
            let authorization = try await Self.begin(world, body: #"{"sourceId": 7, "returnTo": "/app/canvas"}"#)
            let landed = try await Self.land(world, authorization: authorization)
            #expect(landed.hasPrefix("https://gateway.example.edu/app/canvas#canvas-connect="), "\(landed)")
            #expect(try await Self.complete(world, code: try Self.completionCode(landed)).0 == .created)
            for bad in ["https://evil.example/", "//evil.example", "myapp://canvas", "/a#b"] {
                let reply = try await world.client.execute(
                    uri: "/v1/me/gradebook-accounts/oauth", method: .post, headers: [.authorization: "Bearer \(world.ada)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"sourceId": 7, "returnTo": "\#(bad)"}"#)
                ) { ($0.status, String(buffer: $0.body)) }
                #expect(reply.0 == .unprocessableContent && reply.1.contains("returnTo"), "\(bad): \(reply)")
            }
        }
    }

    @Test(arguments: TestBackend.all) func aCallbackInAnotherBrowserOrADeclinedOneStoresNothing(_ backend: TestBackend) async throws {
        try await Self.with(backend) { world in
            #expect(try await Self.land(world, sameBrowser: false) == "https://gateway.example.edu/#/grades?canvas=other-browser")
            world.canvas.declineNextAuthorization()
            #expect(try await Self.land(world) == "https://gateway.example.edu/#/grades?canvas=denied")
            #expect(try await Self.accounts(world).isEmpty)
            #expect(world.canvas.oauth.tokenRequests.isEmpty, "no code was exchanged")
            // A forged or stale state lands on the same page, never a 500.
            let forged = try await world.client.execute(uri: "/v1/gradebook/oauth/callback?code=x&state=v1.nope.AAAA", method: .get) { $0 }
            #expect(forged.status == .seeOther)
            #expect(forged.headers[.location] == "https://gateway.example.edu/#/grades?canvas=expired")
            let badTicket = try await world.client.execute(uri: "/v1/gradebook/oauth/start?ticket=v1.nope.AAAA", method: .get) { $0.status }
            #expect(badTicket == .unprocessableContent)
        }
    }

    @Test(arguments: TestBackend.all) func anExpiredAccessTokenIsRefreshedOnceAndARefusedRefreshNeedsTheStudent(_ backend: TestBackend) async throws {
        try await Self.with(backend) { world in
            #expect(try await Self.connect(world).hasSuffix("canvas=connected"))
            world.canvas.expireAccessTokens()
            #expect(try await Self.grades(world)["status"] as? String == "ok", "refreshed without the student")
            #expect(world.canvas.oauth.tokenRequests == ["authorization_code", "refresh_token"], "once")
            #expect(try await Self.grades(world)["status"] as? String == "ok")
            #expect(world.canvas.oauth.tokenRequests.count == 2, "the renewed token is kept")

            world.canvas.expireAccessTokens()
            world.canvas.refuseRefreshTokens()
            #expect(try await Self.grades(world)["status"] as? String == "credentials-refused")
            #expect(try await Self.accounts(world).first?["status"] as? String == "needs-student")
            #expect(try await Self.grades(world)["status"] as? String == "credentials-refused")
            #expect(world.canvas.oauth.tokenRequests.count == 3, "a refused refresh is not tried again")
            let notices = try await world.gateway.jobs.service.list(kind: GradebookJobs.accountNeedsStudent.name)
            #expect(notices.count == 1, "the student is told once")
            let arguments = String(describing: notices.first?.args)
            #expect(arguments.contains("gradebookAccountId") && !arguments.contains("~"), "ids only, no token (Canvas tokens hold a ~): \(arguments)")

            // The student connects again: the same account works again, with a new grant.
            let id = try await Self.accounts(world).first?["id"] as? Int
            #expect(try await Self.connect(world).hasSuffix("canvas=connected"))
            let renewed = try await Self.accounts(world)
            #expect(renewed.count == 1 && renewed.first?["id"] as? Int == id && renewed.first?["status"] as? String == "ok")
            #expect(try await Self.grades(world)["status"] as? String == "ok")
        }
    }

    @Test(arguments: TestBackend.all) func forgettingTheAccountRevokesItsToken(_ backend: TestBackend) async throws {
        try await Self.with(backend) { world in
            #expect(try await Self.connect(world).hasSuffix("canvas=connected"))
            let id = try #require(try await Self.accounts(world).first?["id"] as? Int)
            let deleted = try await world.client.execute(uri: "/v1/me/gradebook-accounts/\(id)", method: .delete, headers: [.authorization: "Bearer \(world.ada)"]) { $0.status }
            #expect(deleted == .noContent)
            #expect(world.canvas.oauth.revocations == 1)
            #expect(try await Self.accounts(world).isEmpty)
        }
    }

    @Test func withoutAPublicURLOrADeveloperKeyTheFlowSaysWhy() async throws {
        let canvas = CanvasSimulator()
        try await InProcessCanvas.with(canvas) { origin in
            let gateway = try await GradebookGateway.make(.sqlite)
            defer { gateway.cleanUp() }
            _ = try await gateway.module.sources.put(InProcessCanvas.source(origin))
            let ada = try await gateway.account("ada", role: .student)
            try await gateway.withLiveServer { client in
                let answer = try await client.execute(
                    uri: "/v1/me/gradebook-accounts/oauth", method: .post, headers: [.authorization: "Bearer \(ada)", .contentType: "application/json"],
                    body: ByteBuffer(string: #"{"sourceId": 7}"#)
                ) { ($0.status, String(buffer: $0.body)) }
                #expect(answer.0 == .conflict)
                #expect(answer.1.contains("gradebook-oauth-not-configured"))
            }
        }
    }
}
