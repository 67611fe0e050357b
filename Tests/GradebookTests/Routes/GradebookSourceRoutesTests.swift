import AuthTestSupport
import Foundation
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Admins manage gradebook sources over the Gradebook module's routes (``GradebookGateway``);
/// the rules that keep users from choosing upstream URLs.
@Suite("Gradebook sources over HTTP")
struct GradebookSourceRoutesTests {
    @Test(arguments: TestBackend.all) func adminsManageSourcesAndBadDefinitionsNameTheirField(_ backend: TestBackend) async throws {
        let gateway = try await GradebookGateway.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        let student = try await gateway.account("ada", role: .student)
        let good = #"{"id": 5, "name": "Cal Poly", "baseUrl": "https://users.csc.calpoly.edu/~bellardo/cgi-bin/grades.json"}"#
        try await gateway.withRouter { client in
            #expect(try await client.json(.post, "/v1/admin/gradebook/sources", body: good, token: student).status == .forbidden)
            #expect(try await client.json(.post, "/v1/admin/gradebook/sources", body: good).status == .unauthorized)
            let created = try await client.json(.post, "/v1/admin/gradebook/sources", body: good, token: admin)
            #expect(created.status == .created)
            #expect(created.headers[.location] == "/v1/admin/gradebook/sources/5")
            #expect(created.object["pollIntervalSeconds"] as? Int == 900)
            #expect(try await client.json(.post, "/v1/admin/gradebook/sources", body: good, token: admin).status == .conflict)
            let replaced = try await client.json(.put, "/v1/admin/gradebook/sources/5", body: #"{"name": "CSC", "baseUrl": "https://example.edu/grades.json"}"#, token: admin)
            #expect(replaced.status == .ok)
            let listed = try await client.json(.get, "/v1/gradebook/sources")
            #expect(listed.body.contains("\"name\":\"CSC\""))
            #expect(!listed.body.contains("example.edu"), "the public list never shows upstream URLs")

            let bad: [(String, String)] = [
                (#"{"id": 6, "name": "x", "baseUrl": "http://example.edu/grades.json"}"#, "baseUrl"),
                (#"{"id": 6, "name": "x", "baseUrl": "https://user:pw@example.edu/grades.json"}"#, "baseUrl"),
                (#"{"id": 6, "name": "x", "baseUrl": "file:///etc/passwd"}"#, "baseUrl"),
                (#"{"id": 6, "name": "x", "baseUrl": "https://example.edu/grades.json?record=x"}"#, "baseUrl"),
                (#"{"id": 6, "name": "", "baseUrl": "https://example.edu/grades.json"}"#, "name"),
                (#"{"id": 0, "name": "x", "baseUrl": "https://example.edu/grades.json"}"#, "id"),
                (#"{"id": 6, "name": "x", "kind": "blackboard", "baseUrl": "https://example.edu/grades.json"}"#, "kind"),
                (#"{"id": 6, "name": "x", "baseUrl": "https://example.edu/grades.json", "maxConcurrency": 0}"#, "maxConcurrency"),
                (#"{"id": 6, "name": "x", "baseUrl": "https://example.edu/grades.json", "pollIntervalSeconds": 5}"#, "pollIntervalSeconds"),
            ]
            for (body, field) in bad {
                let reply = try await client.json(.post, "/v1/admin/gradebook/sources", body: body, token: admin)
                #expect(reply.status == .unprocessableContent, "\(body)")
                #expect(reply.object["invalidFields"] as? [String] == [field], "\(body)")
            }
            // A development source may use plain http (the simulator on loopback).
            let development = #"{"id": 6, "name": "sim", "baseUrl": "http://127.0.0.1:9/sim/grades.json", "development": true}"#
            #expect(try await client.json(.post, "/v1/admin/gradebook/sources", body: development, token: admin).status == .created)
            #expect(try await client.json(.delete, "/v1/admin/gradebook/sources/6", token: admin).status == .noContent)
            #expect(try await client.json(.delete, "/v1/admin/gradebook/sources/6", token: admin).status == .notFound)
            // Another student's stored account is simply not there.
            #expect(try await client.json(.delete, "/v1/me/gradebook-accounts/1", token: student).status == .notFound)
        }
    }
}
