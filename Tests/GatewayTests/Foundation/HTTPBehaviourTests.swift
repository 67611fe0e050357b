import HTTPTypes
import GatewayHTTP
import GatewayApp
import Auth
import Foundation
import GatewayCore
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@Suite("Errors, limits and operations endpoints")
struct HTTPBehaviourTests {
    @Test func unknownRouteIsA404Problem() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let reply = try await client.json(.get, "/v1/no-such-thing")
            #expect(reply.status == .notFound)
            #expect(reply.contentType == "application/problem+json")
            let object = reply.object
            #expect(object["type"] as? String == "/problems/not-found")
            #expect(object["title"] as? String == "Not found")
            #expect(object["status"] as? Int == 404)
            #expect(object["instance"] as? String == "/v1/no-such-thing")
            #expect(object["requestId"] is String)
            #expect(reply.headers[.requestID] == object["requestId"] as? String)
        }
    }

    @Test func bodiesOverTheLimitAnswer413() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        try await gateway.withLiveServer { client in
            let big = String(repeating: "x", count: (1 << 20) + 10)
            let body = #"{"username":"big","password":""# + big + #""}"#
            let reply = try await client.json(.post, "/v1/accounts", body: body)
            #expect(reply.status == .contentTooLarge)
            #expect(reply.contentType == "application/problem+json")
            #expect(reply.object["type"] as? String == "/problems/payload-too-large")
        }
    }

    @Test func malformedJSONIsA400ProblemNamingTheField() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let notJSON = try await client.json(.post, "/v1/accounts", body: "{nope")
            #expect(notJSON.status == .badRequest)
            #expect(notJSON.contentType == "application/problem+json")
            let wrongType = try await client.json(.post, "/v1/accounts", body: #"{"username":42,"password":"a fine passphrase"}"#)
            #expect(wrongType.status == .badRequest)
            #expect((wrongType.object["invalidFields"] as? [String]) == ["username"])
            let empty = try await client.json(.post, "/v1/accounts")
            #expect(empty.status == .badRequest)
        }
    }

    @Test func callerRequestIDIsEchoedAndUnsafeOnesReplaced() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        try await gateway.withRouter { client in
            let echoed = try await client.json(.get, "/healthz", headers: [.requestID: "abc-123"])
            #expect(echoed.headers[.requestID] == "abc-123")
            let replaced = try await client.json(.get, "/healthz", headers: [.requestID: "bad id\twith spaces"])
            #expect(replaced.headers[.requestID] != nil)
            #expect(replaced.headers[.requestID] != "bad id\twith spaces")
        }
    }

    @Test func healthReadinessMetricsAndSpec() async throws {
        let gateway = try TestGateway()
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("ops", role: .admin)
        let student = try await gateway.account("stu", role: .student)
        try await gateway.withRouter { client in
            let health = try await client.json(.get, "/healthz")
            #expect(health.status == .ok)
            #expect(health.object["status"] as? String == "ok")
            let ready = try await client.json(.get, "/readyz")
            #expect(ready.status == .ok)
            #expect(ready.object["status"] as? String == "ready")
            #expect(try await client.json(.get, "/readyz?deep=1").status == .unauthorized)
            #expect(try await client.json(.get, "/readyz?deep=1", token: student).status == .forbidden)
            let deep = try await client.json(.get, "/readyz?deep=1", token: admin)
            #expect(deep.status == .ok)
            #expect(deep.object["integrity"] as? String == "ok")

            let metrics = try await client.json(.get, "/metrics")
            #expect(metrics.status == .ok)
            #expect(metrics.contentType?.hasPrefix("text/plain") == true)
            #expect(metrics.body.contains("http_server_requests_total"))
            // Refusals are counted under the status the client got, by route template.
            let lines = metrics.body.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("http_server_request_errors_total") && $0.contains(#"http_route="/readyz""#) && $0.contains(#"error_type="401""#) })
            #expect(lines.contains { $0.hasPrefix("http_server_requests_total") && $0.contains(#"http_route="/readyz""#) && $0.contains(#"http_response_status_code="403""#) })
            #expect(lines.contains { $0.hasPrefix("http_server_active_requests") })

            let spec = try await client.json(.get, "/openapi.yaml")
            #expect(spec.status == .ok)
            #expect(spec.body.hasPrefix("openapi: 3.1"))
        }
    }

    @Test func loginFloodDoesNotStarveHealthChecks() async throws {
        // One hashing thread and a short queue: a burst of sign-ins either waits its turn or is
        // told to come back (503), while /healthz keeps answering during the burst.
        let gateway = try TestGateway {
            $0.passwordHashing = .init(memoryKiB: 19_456, iterations: 2, parallelism: 1)
            $0.passwordHashingThreads = 1
            $0.passwordHashingQueue = 4
            $0.loginThrottle = .init(failuresPerUsername: 10_000, failuresPerAddress: 10_000, window: 60)
        }
        defer { gateway.cleanUp() }
        _ = try await gateway.app.accounts.createAccount(username: "flood", email: nil, password: "a fine passphrase", role: .student)
        try await gateway.withRouter { client in
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        let reply = try await client.json(.post, "/v1/auth/token", body: #"{"username":"flood","password":"a fine passphrase"}"#)
                        return [Int(reply.status.code)]
                    }
                }
                group.addTask {
                    var health: [Int] = []
                    for _ in 0..<10 { health.append(Int(try await client.json(.get, "/healthz").status.code) + 1000) }
                    return health
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            let logins = statuses.filter { $0 < 1000 }
            let health = statuses.filter { $0 >= 1000 }.map { $0 - 1000 }
            #expect(health == Array(repeating: 200, count: 10))
            #expect(logins.allSatisfy { $0 == 201 || $0 == 503 })
            #expect(logins.contains(201))
            #expect(logins.contains(503), "a queue of 4 must shed some of 24 simultaneous sign-ins")
        }
    }
}
