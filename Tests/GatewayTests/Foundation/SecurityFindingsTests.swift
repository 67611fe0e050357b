import Auth
import Catalog
import Foundation
import GatewayApp
import GatewayCore
import GatewayHTTP
import HummingbirdTesting
import Registration
import Testing

/// The security review's findings on the HTTP surface, each shown through the real router.
@Suite("Security review findings")
struct SecurityFindingsTests {
    /// `classdetails` answers no more than the distinct ids asked for, and refuses long lists
    /// the protocol's way (before: 200,000 copies of one id made about 100 MB of JSON).
    @Test func classdetailsAnswersDoNotGrowWithPaddedRequests() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let padded = "{\"classids\":[" + Array(repeating: "7036", count: 200_000).joined(separator: ",") + "]}"
            let reply = try await client.json(.post, "/registration/classdetails", body: padded)
            #expect(reply.status == .ok)
            #expect(((try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [Any])?.count == 1)
            #expect(reply.body.utf8.count < 4_000)
            let query = "/registration/classdetails?classids=" + Array(repeating: "7036", count: 5_000).joined(separator: ",")
            let get = try await client.json(.get, query)
            #expect(((try? JSONSerialization.jsonObject(with: Data(get.body.utf8))) as? [Any])?.count == 1)
            let tooMany = "{\"classids\":[" + (1...501).map(String.init).joined(separator: ",") + "]}"
            let refused = try await client.json(.post, "/registration/classdetails", body: tooMany)
            #expect(refused.status == .badRequest)
            #expect(refused.object["error"] is String)
            let subjects = "/registration/classidslist?subjectids=" + (1...501).map(String.init).joined(separator: ",")
            #expect(try await client.json(.get, subjects).status == .badRequest)
        }
    }

    /// `q` with many one-letter words walked the postings of every word starting with that
    /// letter, once per word; now such a query is refused with a problem naming `q`.
    @Test func textSearchIsBounded() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            let flood = "/v1/registration/classes?q=" + Array(repeating: "a", count: 5_000).joined(separator: "+")
            let refused = try await client.json(.get, flood)
            #expect(refused.status == .badRequest)
            #expect((refused.object["invalidFields"] as? [String]) == ["q"])
            #expect(try await client.json(.get, "/v1/registration/classes?q=one+two+three+four+five+six+seven+eight+nine").status == .badRequest)
            #expect(try await client.json(.get, "/v1/registration/classes?q=data+data+structures").status == .ok)
            let subjects = "/v1/registration/classes?subject=" + Array(repeating: "CS", count: 1_000).joined(separator: ",")
            #expect(try await client.json(.get, subjects).status == .ok, "repeats of one subject are one subject")
        }
    }

    /// A red id that isn't nine digits is refused before the throttle: it can't fill the
    /// throttle's table nor lock anyone out.
    @Test func malformedRedIDsNeverReachTheThrottle() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let before = gateway.app.auth.throttle.tableSizes.counters
        for n in 0..<50 {
            await #expect(throws: RegistrationError.invalidCredentials) {
                _ = try await gateway.registration.students.authenticate(
                    redID: String(repeating: "9", count: 100 + n), password: "password", clientAddress: "203.0.113.\(n)"
                )
            }
        }
        #expect(gateway.app.auth.throttle.tableSizes.counters == before)
        #expect(gateway.app.auth.hasher.verificationCount == 0)
    }

    /// Admin class changes can't store numbers that overflow later.
    @Test func classNumbersAreRangeChecked() async throws {
        let gateway = try await TestGateway.registration()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("root", role: .admin)
        try await gateway.withRouter { client async throws in
            let huge = #"{"term":"2018-fall","subject":"CS","course":"540","section":"09","scheduleNumber":"29990","seats":9223372036854775807,"enrolled":9223372036854775807}"#
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: huge, token: admin).status == .unprocessableContent)
            let hugeID = #"{"id":9223372036854775807,"term":"2018-fall","subject":"CS","course":"540","section":"09","scheduleNumber":"29991","seats":10}"#
            #expect(try await client.json(.post, "/v1/admin/registration/classes", body: hugeID, token: admin).status == .unprocessableContent)
            #expect(try await client.json(.patch, "/v1/admin/registration/classes/7000", body: #"{"seats":9223372036854775807}"#, token: admin).status == .unprocessableContent)
        }
    }

    @Test func tokenLifetimesAreBounded() throws {
        let outcome = try GatewayBinary.run(["serve", "--database", "/nonexistent/never.sqlite", "--token-max-minutes", "99999999999"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("token-max-minutes"))
        #expect(AuthSettingsProbe.ceiling(requested: Int.max) == 525_600)
    }
}

enum AuthSettingsProbe {
    static func ceiling(requested: Int) -> Int { AuthService.Settings(maxTokenMinutes: requested).maxTokenMinutes }
}

/// `/metrics` guarded by the app itself when a metrics token is set (the nginx rule
/// `location = /metrics` missed `/metrics/`).
@Suite("Metrics token")
struct MetricsTokenTests {
    @Test func metricsNeedTheTokenWhenOneIsSet() async throws {
        let gateway = try TestGateway { $0.metricsToken = "a-long-metrics-token-0123" }
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.get, "/metrics").status == .unauthorized)
            #expect(try await client.json(.get, "/metrics/").status == .unauthorized)
            #expect(try await client.json(.get, "/metrics", token: "a-long-metrics-token-0124").status == .unauthorized)
            #expect(try await client.json(.get, "/metrics", token: "a-long-metrics-token-0123").status == .ok)
        }
        let open = try TestGateway()
        defer { open.cleanUp() }
        try await open.withRouter { client async throws in
            #expect(try await client.json(.get, "/metrics").status == .ok)
        }
    }
}
