import Catalog
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Terms over the Catalog module's routes, mounted alone (``CatalogRoutesHarness``): anyone
/// reads them, admins create, replace and delete them, and every refusal is a problem document
/// naming what is wrong.
@Suite("Terms over HTTP")
struct TermRoutesTests {
    static let spring = #"""
        {"id": "2024-spring", "name": "Spring 2024", "firstDay": "2024-01-22", "lastDay": "2024-05-03", "timeZone": "America/Los_Angeles", "holidays": [{"date": "2024-02-19", "name": "Presidents' Day"}, {"from": "2024-03-11", "to": "2024-03-15", "name": "Spring break"}], "transferDays": [{"date": "2024-04-30", "follows": "friday"}], "seatsFrom": "gateway"}
        """#

    static func json(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test(arguments: TestBackend.all) func adminsCreateReplaceAndDeleteTermsAndAnyoneReadsThem(_ backend: TestBackend) async throws {
        let gateway = try await CatalogRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        try await gateway.withRouter { client in
            #expect(try await client.json(.get, "/v1/terms").object["items"] as? [Any] != nil)
            #expect(try await client.json(.get, "/v1/terms/2024-spring").status == .notFound)

            let created = try await client.json(.post, "/v1/admin/terms", body: Self.spring, token: admin)
            #expect(created.status == .created)
            #expect(created.headers[.location] == "/v1/terms/2024-spring")
            #expect(try Self.json(created.body) == Self.json(Self.spring), "the term answers exactly as it was sent")

            let read = try await client.json(.get, "/v1/terms/2024-spring")
            #expect(read.status == .ok)
            #expect(try Self.json(read.body) == Self.json(Self.spring))
            let listed = try await client.json(.get, "/v1/terms")
            #expect(try Self.json(listed.body) == Self.json(#"{"items": [\#(Self.spring)]}"#))
            #expect(try await client.json(.get, "/v1/admin/terms", token: admin).body == listed.body)

            let duplicate = try await client.json(.post, "/v1/admin/terms", body: Self.spring, token: admin)
            #expect(duplicate.status == .conflict)
            #expect(duplicate.contentType == "application/problem+json")
            #expect(duplicate.object["type"] as? String == "/problems/term-exists")

            let renamed = Self.spring.replacingOccurrences(of: "\"Spring 2024\"", with: "\"Spring semester 2024\"")
            let replaced = try await client.json(.put, "/v1/admin/terms/2024-spring", body: renamed, token: admin)
            #expect(replaced.status == .ok)
            #expect(replaced.headers[.location] == nil)
            #expect(replaced.object["name"] as? String == "Spring semester 2024")
            #expect(try await client.json(.get, "/v1/terms/2024-spring").object["name"] as? String == "Spring semester 2024")

            // PUT creates too; a body without an id takes the address's.
            let withoutID = Self.spring.replacingOccurrences(of: #""id": "2024-spring", "#, with: "")
            let fresh = try await client.json(.put, "/v1/admin/terms/2024-spring-late", body: withoutID, token: admin)
            #expect(fresh.status == .created)
            #expect(fresh.headers[.location] == "/v1/terms/2024-spring-late")
            #expect(fresh.object["id"] as? String == "2024-spring-late")
            let mismatch = try await client.json(.put, "/v1/admin/terms/2024-fall", body: Self.spring, token: admin)
            #expect(mismatch.status == .unprocessableContent)
            #expect(mismatch.object["invalidFields"] as? [String] == ["id"])
            #expect(try await client.json(.get, "/v1/terms/2024-fall").status == .notFound, "nothing was stored")

            let items = try await client.json(.get, "/v1/terms").object["items"] as? [[String: Any]]
            #expect(items?.compactMap { $0["id"] as? String } == ["2024-spring", "2024-spring-late"])

            #expect(try await client.json(.delete, "/v1/admin/terms/2024-spring-late", token: admin).status == .noContent)
            let gone = try await client.json(.get, "/v1/terms/2024-spring-late")
            #expect(gone.status == .notFound)
            #expect(gone.contentType == "application/problem+json")
            #expect(gone.object["type"] as? String == "/problems/term-not-found")
            let again = try await client.json(.delete, "/v1/admin/terms/2024-spring-late", token: admin)
            #expect(again.status == .notFound)
            #expect(again.object["type"] as? String == "/problems/term-not-found")
        }
    }

    /// Each bad field answers 422 `validation-failed` naming it in `invalidFields`, whether it
    /// does not decode (an impossible date, an unknown weekday) or breaks a rule.
    @Test(arguments: [
        ("firstDay", #""firstDay": "2024-01-22""#, #""firstDay": "2024-02-30""#),
        ("lastDay", #""lastDay": "2024-05-03""#, #""lastDay": "2024-01-01""#),
        ("timeZone", #""timeZone": "America/Los_Angeles""#, #""timeZone": "Pacific/Atlantis""#),
        ("holidays[0].date", #""date": "2024-02-19""#, #""date": "2025-02-17""#),
        ("holidays[1].to", #""to": "2024-03-15""#, #""to": "2024-05-31""#),
        ("holidays[1].from", #""from": "2024-03-11""#, #""from": "2024-13-01""#),
        ("transferDays[0].follows", #""follows": "friday""#, #""follows": "caturday""#),
        ("transferDays[0].date", #""date": "2024-04-30""#, #""date": "2024-03-13""#),
        ("name", #""name": "Spring 2024", "#, ""),
        ("id", #""id": "2024-spring""#, #""id": "2024?spring""#),
        ("holidays", #""holidays": ["#, #""holidays": {}, "ignored": ["#),
    ])
    func eachBadFieldAnswers422NamingIt(field: String, original: String, replacement: String) async throws {
        let gateway = try await CatalogRoutesHarness.make(.sqlite)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let body = Self.spring.replacingOccurrences(of: original, with: replacement)
        #expect(body != Self.spring)
        try await gateway.withRouter { client in
            for (method, uri) in [(HTTPRequest.Method.post, "/v1/admin/terms"), (.put, "/v1/admin/terms/2024-spring")] {
                let reply = try await client.json(method, uri, body: body, token: admin)
                #expect(reply.status == .unprocessableContent, "\(method) \(field): \(reply.body)")
                #expect(reply.contentType == "application/problem+json")
                #expect(reply.object["type"] as? String == "/problems/validation-failed")
                #expect(reply.object["invalidFields"] as? [String] == [field], "\(method): \(reply.body)")
                #expect((reply.object["detail"] as? String)?.hasPrefix(field) == true, "\(reply.body)")
            }
            let items = try await client.json(.get, "/v1/terms").object["items"] as? [Any]
            #expect(items?.isEmpty == true, "nothing was stored")
        }
    }

    @Test(arguments: TestBackend.all) func bodiesThatAreNotATermAre400AndLargeOnes413(_ backend: TestBackend) async throws {
        let gateway = try await CatalogRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let huge = #"{"id": "x", "name": ""# + String(repeating: "a", count: 1 << 20) + #""}"#
        try await gateway.withRouter { client in
            for body in ["[]", "{\"id\": ", "not json"] {
                let reply = try await client.json(.post, "/v1/admin/terms", body: body, token: admin)
                #expect(reply.status == .badRequest, "\(body): \(reply.body)")
                #expect(reply.contentType == "application/problem+json")
            }
            let empty = try await client.json(.post, "/v1/admin/terms", token: admin)
            #expect(empty.status == .badRequest)
            let tooLarge = try await client.json(.post, "/v1/admin/terms", body: huge, token: admin)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.object["type"] as? String == "/problems/payload-too-large")
        }
    }

    /// The admin routes answer like every other admin route: 401 without credentials, 403 for
    /// a role below admin. Reading terms needs no credentials.
    @Test(arguments: TestBackend.all) func onlyAdminsChangeTerms(_ backend: TestBackend) async throws {
        let gateway = try await CatalogRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let student = try await gateway.account("sam", role: .student)
        let instructor = try await gateway.account("ina", role: .instructor)
        try await gateway.withRouter { client in
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/v1/admin/terms", nil), (.post, "/v1/admin/terms", Self.spring),
                (.put, "/v1/admin/terms/2024-spring", Self.spring), (.delete, "/v1/admin/terms/2024-spring", nil),
            ]
            for (method, uri, body) in requests {
                let anonymous = try await client.json(method, uri, body: body)
                #expect(anonymous.status == .unauthorized, "\(method) \(uri)")
                #expect(anonymous.object["type"] as? String == "/problems/unauthenticated")
                for token in [student, instructor] {
                    let refused = try await client.json(method, uri, body: body, token: token)
                    #expect(refused.status == .forbidden, "\(method) \(uri)")
                    #expect(refused.object["type"] as? String == "/problems/forbidden")
                }
            }
            #expect(try await client.json(.get, "/v1/terms").status == .ok)
            #expect(try await client.json(.get, "/v1/terms/2024-spring").status == .notFound, "nothing was created")
        }
    }
}
