import Foundation
import GatewayApp
import GatewayCore
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

/// Conditional requests through the whole application on both backends: JSON answers carry an
/// `ETag` that changes when the data does, `If-None-Match` answers 304, and a stale `If-Match`
/// on a student's saved schedule or push preferences answers 412 and changes nothing.
@Suite("Conditional requests")
struct ConditionalRequestTests {
    static func with(_ name: HTTPField.Name, _ value: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[name] = value
        return fields
    }

    @Test(arguments: GatewayBackend.all) func tagsRevalidateAndGuardWrites(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("etag-ada", role: .student)
        try await gateway.withRouter { client in
            // A catalog read: tagged, and revalidated with 304 and no body.
            let subjects = try await client.json(.get, "/v1/registration/subjects")
            let tag = try #require(subjects.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
            let again = try await client.json(.get, "/v1/registration/subjects", headers: Self.with(.ifNoneMatch, tag))
            #expect(again.status == .notModified && again.body.isEmpty && again.headers[.eTag] == tag)
            #expect(try await client.json(.get, "/v1/registration/subjects", headers: Self.with(.ifNoneMatch, "W/\(tag), \"other\"")).status == .notModified)
            #expect(try await client.json(.get, "/v1/registration/subjects", headers: Self.with(.ifNoneMatch, "\"other\"")).status == .ok)

            // The class's tag changes when its seats do.
            let before = try #require(try await client.json(.get, "/v1/registration/classes/7030").headers[.eTag])
            try await gateway.openSeats(3, in: 7030)
            let after = try await client.json(.get, "/v1/registration/classes/7030", headers: Self.with(.ifNoneMatch, before))
            #expect(after.status == .ok && after.headers[.eTag] != before)

            // A saved schedule: PATCH with the current tag applies, with a stale one is 412.
            var auth = HTTPFields()
            auth[.authorization] = "Bearer \(ada)"
            let created = try await client.json(.post, "/v1/me/schedules", body: #"{"name":"Plan A","term":"2018-fall","classIds":[7030]}"#, token: ada)
            #expect(created.status == .created)
            let id = try #require(created.object["id"] as? Int)
            let read = try await client.json(.get, "/v1/me/schedules/\(id)", token: ada)
            let first = try #require(read.headers[.eTag])
            let renamed = try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"name":"Plan B"}"#, token: ada, headers: Self.with(.ifMatch, first))
            #expect(renamed.status == .ok, "\(renamed.body)")
            let second = try #require(renamed.headers[.eTag])
            #expect(second != first)
            let stale = try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"name":"Plan C"}"#, token: ada, headers: Self.with(.ifMatch, first))
            #expect(stale.status == .preconditionFailed && stale.object["type"] as? String == "/problems/precondition-failed")
            #expect(stale.headers[.eTag] == second)
            let now = try await client.json(.get, "/v1/me/schedules/\(id)", token: ada)
            #expect(now.object["name"] as? String == "Plan B" && now.headers[.eTag] == second, "the stale write changed nothing")
            #expect(try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"name":"Plan D"}"#, token: ada).status == .ok, "no If-Match: last write wins")
            // Another student's schedule is still 404, If-Match or not.
            let bob = try await gateway.account("etag-bob", role: .student)
            #expect(try await client.json(.patch, "/v1/me/schedules/\(id)", body: #"{"name":"x"}"#, token: bob, headers: Self.with(.ifMatch, second)).status == .notFound)

            // Push preferences, the same way.
            let preferences = try await client.json(.get, "/v1/me/push-preferences", token: ada)
            let p1 = try #require(preferences.headers[.eTag])
            #expect(try await client.json(.put, "/v1/me/push-preferences", body: #"{"maxPerHour": 5}"#, token: ada, headers: Self.with(.ifMatch, p1)).status == .ok)
            let late = try await client.json(.put, "/v1/me/push-preferences", body: #"{"maxPerHour": 9}"#, token: ada, headers: Self.with(.ifMatch, p1))
            #expect(late.status == .preconditionFailed)
            #expect(try await client.json(.get, "/v1/me/push-preferences", token: ada).object["maxPerHour"] as? Int == 5)

            // The SDSU protocol's answers get no tag and stay as they were.
            #expect(try await client.json(.get, "/registration/subjectlist").headers[.eTag] == nil)
        }
    }
}
