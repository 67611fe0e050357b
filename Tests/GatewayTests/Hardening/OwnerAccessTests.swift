import Foundation
import GatewayApp
import GatewayCore
import GatewayHTTP
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Every signed-in route that names a resource in its path, called by its owner and by another
/// student. The route list comes from the router's registry, so a new route with an id can't be
/// left out: it needs an owned fixture here, or a line in ``notOwned`` saying why it isn't a
/// student's resource. (Anonymous callers and the wrong role are checked over every route by
/// `RouteGuardTests`.)
@Suite("Another student's resources")
struct OwnerAccessTests {
    /// Path parameters that name public or shared things, not one student's resource.
    static let notOwned: [String: String] = [
        "/v1/registration/classes/{classId}": "the catalog is public",
        "/v1/terms/{id}": "terms are public",
        "/v1/calendar-feeds/{token}": "the feed's secret token is the credential",
        "/v1/gradebook/{sourceId}": "a gradebook source is shared; the caller's own linked account is used",
    ]

    static func isNotOwned(_ path: String) -> Bool {
        notOwned.keys.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// The test catalog and the demo's gradebook simulator, with two SDSU students, each signed in.
    static func students(_ client: any TestClientProtocol) async throws -> (owner: String, other: String) {
        var tokens: [String] = []
        for (redID, first) in [("123456003", "Owner"), ("123456004", "Other")] {
            let body = #"{"firstname":"\#(first)","lastname":"Student","redid":"\#(redID)","password":"password","email":"\#(first)@sdsu.edu"}"#
            let added = try await client.json(.post, "/registration/addstudent", body: body)
            #expect(added.object["ok"] != nil, "\(added.body)")
            let token = try await client.json(.post, "/v1/auth/token", body: #"{"username":"\#(redID)","password":"password"}"#)
            tokens.append(try #require(token.object["token"] as? String, "\(token.body)"))
        }
        return (tokens[0], tokens[1])
    }

    @Test(arguments: GatewayBackend.all) func anotherStudentsResourceAnswersAsIfItDidNotExist(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) { config in
            config.demo = true
            config.environment = [:]
            config.quickHACRequestsPerMinute = 0
        }
        defer { gateway.cleanUp() }
        _ = gateway.app.makeRouter()
        let routes = gateway.app.routes.all.filter { $0.access != RouteAccess.public.description && !$0.path.hasPrefix("/v1/admin") }
        try await gateway.withLiveServer { client async throws in
            let (owner, other) = try await Self.students(client)

            // The owner's resources, one of each kind a path can name.
            // A class with a seat and a full one of the SDSU term, from the demo's catalog: the
            // owner registers in the first and waits in line for the second.
            var open: [(id: Int, term: String)] = [], full: [(id: Int, term: String)] = [], cursor: String?
            for _ in 0..<25 {
                let page = try await client.json(.get, "/v1/registration/classes?limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""), token: owner)
                for item in page.object["items"] as? [[String: Any]] ?? [] {
                    guard let id = item["id"] as? Int, let seats = item["openSeats"] as? Int, let term = item["term"] as? String else { continue }
                    if seats > 0 { open.append((id, term)) } else { full.append((id, term)) }
                }
                cursor = page.object["nextCursor"] as? String
                if cursor == nil || (open.count > 50 && full.count > 50) { break }
            }
            let credentials = "redid=123456003&password=password"
            var held: Int?, term: String?
            for candidate in open.prefix(60) where held == nil {
                let reply = try await client.json(.get, "/registration/registerclass?\(credentials)&courseid=\(candidate.id)")
                if reply.object["ok"] != nil { held = candidate.id; term = candidate.term }
            }
            var waiting: Int?
            for candidate in full.prefix(60) where waiting == nil && candidate.term == term {
                let reply = try await client.json(.get, "/registration/waitlistclass?\(credentials)&courseid=\(candidate.id)")
                if reply.object["ok"] != nil { waiting = candidate.id }
            }
            let heldClass = try #require(held, "a class the owner could register in"), fullClass = try #require(waiting, "a full class of that term")
            let scheduleTerm = try #require(term)
            let schedule = try await client.json(.post, "/v1/me/schedules", body: #"{"name":"mine","term":"\#(scheduleTerm)","classIds":[\#(heldClass)]}"#, token: owner)
            let alert = try await client.json(.post, "/v1/me/seat-alerts", body: #"{"classId":\#(fullClass)}"#, token: owner)
            let device = try await client.json(.post, "/v1/me/devices", body: #"{"channel":"log","name":"mine"}"#, token: owner)
            let account = try await client.json(
                .post, "/v1/me/gradebook-accounts", body: #"{"sourceId":1,"username":"jdoe","password":"\#(DemoGateway.password)"}"#, token: owner
            )
            func id(_ reply: HTTPReply) throws -> String {
                let object = (reply.object["device"] as? [String: Any]) ?? reply.object
                return "\(try #require(object["id"] as? Int, "\(reply.status) \(reply.body)"))"
            }
            let link = try await client.json(.post, "/v1/me/schedules/\(try id(schedule))/share-links", body: #"{"expiresIn":"never"}"#, token: owner)
            // A friend request the owner sent (to nobody the other student is).
            let sent = try await client.json(.post, "/v1/me/friends/requests", body: #"{"username":"someone-else"}"#, token: owner)
            #expect(sent.status == .accepted, "\(sent.body)")
            let requests = try await client.json(.get, "/v1/me/friends/requests", token: owner)
            let request = try #require((requests.object["items"] as? [[String: Any]])?.first, "\(requests.body)")
            let owned: [String: String] = [
                "{scheduleId}": try id(schedule), "{alertId}": try id(alert), "{deviceId}": try id(device),
                "{accountId}": try id(account), "{gradebookAccountId}": try id(account), "{classId}": "\(heldClass)",
                "{linkId}": try id(link), "{requestId}": "\(try #require(request["id"] as? Int))",
            ]

            let feed = try await client.json(.post, "/v1/me/schedules/\(try id(schedule))/calendar-feed", token: owner)
            #expect((200..<300).contains(feed.status.code), "\(feed.status) \(feed.body)")

            func uri(_ path: String, ids: [String: String]) -> String? {
                var parts: [String] = []
                for part in path.split(separator: "/") {
                    if part.hasPrefix("{") {
                        guard let value = ids[String(part)] else { return nil }
                        parts.append(value)
                    } else {
                        parts.append(String(part))
                    }
                }
                return "/" + parts.joined(separator: "/")
            }
            let never = Dictionary(uniqueKeysWithValues: owned.keys.map { ($0, "987654321") })
            var checked = 0
            for route in routes where route.path.contains("/{") && !Self.isNotOwned(route.path) {
                let method = try #require(HTTPRequest.Method(route.method))
                guard let mine = uri(route.path, ids: owned), let nobodys = uri(route.path, ids: never) else {
                    Issue.record("\(route.method) \(route.path) names a resource this test has no fixture for: add one, or list it in notOwned")
                    continue
                }
                checked += 1
                let body: String? = [.post, .put, .patch].contains(method) ? "{}" : nil
                let theirs = try await client.json(method, mine, body: body, token: other)
                let missing = try await client.json(method, nobodys, body: body, token: other)
                let what = "\(route.method) \(mine) as another student"
                #expect(!(200..<300).contains(theirs.status.code), "\(what): \(theirs.status) \(theirs.body.prefix(200))")
                #expect(theirs.status != .forbidden, "\(what): 403 says the resource exists")
                if route.path.contains("{classId}") {
                    // A class is public; the other student simply has no enrollment, waitlist
                    // place or offer in it, so nothing of the owner's is touched.
                    #expect(theirs.status.code >= 400 && theirs.status.code < 500, "\(what): \(theirs.status)")
                } else {
                    #expect(theirs.status == missing.status, "\(what): \(theirs.status), but \(missing.status) for an id nobody has")
                    #expect(theirs.object["type"] as? String == missing.object["type"] as? String, "\(what): \(theirs.body.prefix(200))")
                    if method == .get || method == .delete || method == .head {
                        #expect(theirs.status == .notFound, "\(what): \(theirs.status)")
                    }
                }
            }
            #expect(checked >= 15, "routes with an owned id: \(checked)")

            // Nothing of the owner's moved: every owned GET still answers them, and their
            // enrollment, waitlist place, alert, device and account are all still there.
            for route in routes where route.method == "GET" && route.path.contains("/{") && !Self.isNotOwned(route.path) && !route.path.contains("{classId}") {
                guard let mine = uri(route.path, ids: owned) else { continue }
                // (A calendar of a term without dates is a 409: the schedule is there.)
                let reply = try await client.json(.get, mine, token: owner)
                #expect(reply.status == .ok || reply.status == .conflict, "GET \(mine) as its owner: \(reply.status) \(reply.body.prefix(200))")
            }
            let classes = try await client.json(.get, "/registration/studentclasses?redid=123456003&password=password")
            #expect(classes.object["classes"] as? [Int] == [heldClass], "\(classes.body)")
            #expect(classes.object["waitlist"] as? [Int] == [fullClass], "\(classes.body)")
            for list in ["/v1/me/seat-alerts", "/v1/me/devices", "/v1/me/gradebook-accounts", "/v1/me/schedules"] {
                let items = try await client.json(.get, list, token: owner).object["items"] as? [Any] ?? []
                #expect(items.count == 1, "\(list): \(items)")
                let theirs = try await client.json(.get, list, token: other).object["items"] as? [Any]
                #expect(theirs?.isEmpty == true, "\(list) as another student: \(String(describing: theirs))")
            }
        }
    }
}
