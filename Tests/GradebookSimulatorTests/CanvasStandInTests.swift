import Foundation
import GradebookSimulator
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

/// The Canvas stand-in as Canvas's docs describe it: tokens, pages, throttling on demand
/// (also over its admin route), OAuth2 codes and refresh.
@Suite("Canvas stand-in")
struct CanvasStandInTests {
    static func app(_ canvas: CanvasSimulator) -> some ApplicationProtocol {
        let router = Router()
        canvas.register(on: router, prefix: "canvas")
        return Application(router: router)
    }

    static let student: HTTPFields = [.authorization: "Bearer demo-canvas-token"]

    @Test func listsPageByLinkAndTheAdminRouteThrottles() async throws {
        try await Self.app(CanvasSimulator(adminToken: Sim.token)).test(.router) { client in
            let first = try await client.execute(uri: "/canvas/api/v1/courses?per_page=100", method: .get, headers: Self.student) { $0 }
            #expect(first.status == .ok)
            let link = try #require(first.headers[HTTPField.Name("Link")!])
            #expect(link.contains(#"rel="next""#), "two items a page, whatever per_page asks")
            #expect(first.headers[HTTPField.Name("X-Rate-Limit-Remaining")!] != nil)
            let anonymous = try await client.execute(uri: "/canvas/api/v1/courses", method: .get) { $0 }
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)

            let refused = try await client.execute(
                uri: "/canvas/_admin/canvas/throttle", method: .post, headers: [.authorization: "Bearer wrong"], body: ByteBuffer(string: #"{"requests": 2}"#)
            ) { $0.status }
            #expect(refused == .notFound)
            let throttle = try await client.execute(
                uri: "/canvas/_admin/canvas/throttle", method: .post, headers: [.authorization: "Bearer \(Sim.token)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"requests": 1}"#)
            ) { $0.status }
            #expect(throttle == .noContent)
            let throttled = try await client.execute(uri: "/canvas/api/v1/users/self", method: .get, headers: Self.student) { $0 }
            #expect(throttled.status == .forbidden)
            #expect(String(buffer: throttled.body).contains("Rate Limit Exceeded"))
            #expect(try await client.execute(uri: "/canvas/api/v1/users/self", method: .get, headers: Self.student) { $0.status } == .ok, "one request only")
        }
    }

    @Test func aCodeIsExchangedOnceAndARefreshTokenMintsAccessTokens() async throws {
        let key = CanvasSimulator.DeveloperKey.demo
        let canvas = CanvasSimulator()
        try await Self.app(canvas).test(.router) { client in
            let redirect = "https://app.example.edu/callback"
            let authorize = try await client.execute(
                uri: "/canvas/login/oauth2/auth?client_id=\(key.id)&response_type=code&state=s1&redirect_uri=\(redirect)", method: .get
            ) { $0 }
            #expect(authorize.status == .found)
            let back = try #require(URLComponents(string: authorize.headers[.location] ?? ""))
            #expect(back.host == "app.example.edu")
            #expect(back.queryItems?.first { $0.name == "state" }?.value == "s1")
            let code = try #require(back.queryItems?.first { $0.name == "code" }?.value)
            func token(_ form: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(
                    uri: "/canvas/login/oauth2/token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form)
                ) { ($0.status, (try? JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any]) ?? [:]) }
            }
            let form = "grant_type=authorization_code&client_id=\(key.id)&client_secret=\(key.secret)&redirect_uri=\(redirect)&code=\(code)"
            let (status, grant) = try await token(form)
            #expect(status == .ok)
            let access = try #require(grant["access_token"] as? String)
            let refresh = try #require(grant["refresh_token"] as? String)
            #expect(grant["expires_in"] as? Int == 3600)
            #expect((grant["user"] as? [String: Any])?["id"] as? Int == 5001)
            #expect(try await token(form).0 == .badRequest, "a code is used once")
            #expect(try await client.execute(uri: "/canvas/api/v1/users/self", method: .get, headers: [.authorization: "Bearer \(access)"]) { $0.status } == .ok)

            canvas.expireAccessTokens()
            let expired = try await client.execute(uri: "/canvas/api/v1/users/self", method: .get, headers: [.authorization: "Bearer \(access)"]) { $0 }
            #expect(expired.status == .unauthorized)
            #expect(expired.headers[.wwwAuthenticate] != nil, "an expired token is said so")
            let renewed = try await token("grant_type=refresh_token&client_id=\(key.id)&client_secret=\(key.secret)&refresh_token=\(refresh)")
            #expect(renewed.0 == .ok)
            #expect(renewed.1["refresh_token"] == nil, "Canvas keeps the refresh token")
            #expect(try await token("grant_type=refresh_token&client_id=\(key.id)&client_secret=wrong&refresh_token=\(refresh)").0 == .unauthorized)
            canvas.refuseRefreshTokens()
            #expect(try await token("grant_type=refresh_token&client_id=\(key.id)&client_secret=\(key.secret)&refresh_token=\(refresh)").0 == .badRequest)
            #expect(canvas.oauth.tokenRequests.count == 5)
        }
    }
}
