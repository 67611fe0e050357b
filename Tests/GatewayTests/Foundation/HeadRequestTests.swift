import Catalog
import GatewayCore
import GatewayHTTP
import Foundation
import HTTPTypes
import GatewayApp
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import TestSupport
import Testing

/// HEAD wherever GET works (`HeadRequests`): every GET route of the router, found by walking
/// the router itself, answers HEAD with the GET's status and headers and no body.
@Suite("HEAD answers as GET would")
struct HeadRequestTests {
    /// A gateway with the seed's catalog, the demo term, and a student with a calendar feed.
    static func gateway() async throws -> (TestGateway, admin: String, feed: String) {
        let gateway = try await TestGateway.registration()
        _ = try await gateway.app.termService.seed(DemoTerms.all)
        let admin = try await gateway.account("head-admin", role: .admin)
        let ada = try await gateway.account("ada", role: .student)
        let captured = Captured("")
        try await gateway.withRouter { client in
            let profile = #"{"redId":"822326003","firstName":"Ada","lastName":"Lovelace","email":"ada@sdsu.edu"}"#
            #expect(try await client.json(.put, "/v1/me/registration/profile", body: profile, token: ada).status == .ok)
            #expect(try await client.json(.post, "/v1/me/registration/enrollments", body: #"{"classId":7033}"#, token: ada).status == .created)
            let created = try await client.json(.post, "/v1/me/calendar-feed", token: ada)
            captured.set(created.object["path"] as? String ?? "")
        }
        let feed = captured.value
        #expect(feed.hasPrefix("/calendar/"))
        return (gateway, admin, feed)
    }

    /// A request path for a route template: parameters filled with values that exist where
    /// that matters (the feed's file, a shipped asset, a seed class), "1" elsewhere.
    static func concrete(_ template: String, feed: String) -> String {
        if template == "/calendar/{file}" { return feed }
        let parts = template.split(separator: "/").map { part -> String in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return String(part) }
            switch part.dropFirst().dropLast() {
            case "file": return "api.js"
            case "classId": return "7036"
            case "id" where template.hasPrefix("/v1/terms"): return DemoCatalog.term
            case "name": return "default"
            default: return "1"
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Header fields as comparable text, without the ones that may differ between two calls.
    static func fields(_ headers: HTTPFields, ignoring: Set<HTTPField.Name>) -> [String] {
        headers.filter { !ignoring.contains($0.name) }.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
    }

    @Test func everyGETRouteAnswersHEADWithTheSameStatusAndHeaders() async throws {
        let (gateway, admin, feed) = try await Self.gateway()
        defer { gateway.cleanUp() }
        let getRoutes = gateway.app.makeRouter().routes.filter { $0.method == .get }.map { $0.path.description }
        #expect(getRoutes.count > 40)
        #expect(!getRoutes.contains { $0.contains(":") }, "templates name their parameters {like_this}")
        #expect(getRoutes.contains("/healthz") && getRoutes.contains("/calendar/{file}"))
        try await gateway.withRouter { client in
            var answered = 0
            for (index, template) in getRoutes.enumerated() {
                let uri = Self.concrete(template, feed: feed)
                // The same request id both times, so the echoed X-Request-Id matches too.
                let headers: HTTPFields = [.authorization: "Bearer \(admin)", .requestID: "head-walk-\(index)"]
                let get = try await client.execute(uri: uri, method: .get, headers: headers) { $0 }
                let head = try await client.execute(uri: uri, method: .head, headers: headers) { $0 }
                #expect(head.status == get.status, "HEAD \(uri): \(head.status), GET \(get.status)")
                #expect(head.body.readableBytes == 0, "HEAD \(uri) has a body")
                // The metrics document counts every request, so its length moves between calls.
                let ignoring: Set<HTTPField.Name> = template == "/metrics" ? [.contentLength] : []
                #expect(Self.fields(head.headers, ignoring: ignoring) == Self.fields(get.headers, ignoring: ignoring), "HEAD \(uri) headers")
                if get.body.readableBytes > 0, template != "/metrics" {
                    #expect(head.headers[.contentLength] == String(get.body.readableBytes), "HEAD \(uri) Content-Length")
                }
                if get.status == .ok { answered += 1 }
            }
            #expect(answered > 20, "most GET routes answered 200 in the walk")
        }
    }

    @Test func healthAndCalendarFeedsAnswerHEADOverTheWire() async throws {
        let (gateway, _, feed) = try await Self.gateway()
        defer { gateway.cleanUp() }
        try await gateway.withLiveServer { client in
            for path in ["/healthz", feed] {
                let get = try await client.execute(uri: path, method: .get) { $0 }
                let head = try await client.execute(uri: path, method: .head) { $0 }
                #expect(get.status == .ok && head.status == .ok, "\(path)")
                #expect(head.body.readableBytes == 0)
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(path)")
                #expect(head.headers[.contentType] == get.headers[.contentType])
                #expect(head.headers[.eTag] == get.headers[.eTag])
            }
            let etag = try await client.execute(uri: feed, method: .get) { $0.headers[.eTag] ?? "" }
            let unchanged = try await client.execute(uri: feed, method: .head, headers: [.ifNoneMatch: etag]) { $0 }
            #expect(unchanged.status == .notModified)
            // What GET doesn't serve, HEAD doesn't either: an unknown path, a POST-only route.
            for path in ["/nothing-here", "/registration/addstudent", "/calendar/not-a-token.ics"] {
                let head = try await client.execute(uri: path, method: .head) { $0 }
                #expect(head.status == .notFound, "\(path)")
                #expect(head.body.readableBytes == 0)
            }
            // The connection still works after bodyless answers, and metrics label HEAD as HEAD.
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains(#"http_request_method="HEAD""#))
        }
    }
}
