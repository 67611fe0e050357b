import Foundation
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Jobs
import TestSupport
import Testing

/// Finding jobs by what they carry and acting on many at once, through the admin routes on
/// both backends: each filter, `total`, each bulk action with its skipped reasons, `more`, and
/// refused requests.
@Suite("Jobs filters and bulk actions")
struct JobsBulkRoutesTests {
    static func ids(_ reply: HTTPReply) -> [Int] {
        JobsAdminRoutesTests.items(reply).compactMap { $0["id"] as? Int }
    }

    static func enqueue(_ client: any TestClientProtocol, _ body: String, admin: String) async throws -> Int {
        let reply = try await client.json(.post, "/v1/admin/jobs", body: body, token: admin)
        return try #require(reply.object["id"] as? Int, "\(reply.status) \(reply.body)")
    }

    @Test(arguments: TestBackend.all) func everyFilterNarrowsTheListAndTheTotalCountsAllPages(_ backend: TestBackend) async throws {
        let gateway = try await JobsRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.module.runtime
        try await gateway.withRouter { client async throws in
            let failing = try await Self.enqueue(client, #"{"kind":"diagnostics.fail","args":{"message":"boom 42"},"maxAttempts":1}"#, admin: admin)
            let other = try await Self.enqueue(client, #"{"kind":"diagnostics.fail","args":{"message":"quiet"},"maxAttempts":1}"#, admin: admin)
            _ = try await jobs.pool.drain()
            let five = try await Self.enqueue(client, #"{"kind":"diagnostics.sleep","args":{"seconds":5},"scheduledAt":"2099-01-01T00:00:00Z"}"#, admin: admin)
            let fiveText = try await Self.enqueue(client, #"{"kind":"diagnostics.sleep","args":{"seconds":6},"scheduledAt":"2098-01-01T00:00:00Z"}"#, admin: admin)

            func list(_ query: String) async throws -> [Int] {
                let reply = try await client.json(.get, "/v1/admin/jobs?\(query)", token: admin)
                #expect(reply.status == .ok, "\(query): \(reply.body)")
                return Self.ids(reply)
            }
            #expect(try await list("args.message=boom%2042") == [failing])
            #expect(try await list("args.seconds=5") == [five])
            #expect(try await list("args.seconds=5&args.seconds=6").isEmpty, "AND")
            #expect(try await list("args.missing.deeper=1").isEmpty)
            #expect(try await list("ids=\(failing),\(five)") == [five, failing])
            #expect(try await list("error=BOOM") == [failing], "a substring of the last error, in any case")
            #expect(try await list("minAttempt=1").sorted() == [failing, other])
            #expect(try await list("since=2098-06-01T00:00:00Z") == [five])
            #expect(try await list("until=2098-06-01T00:00:00Z&kind=diagnostics.sleep") == [fiveText])

            // The total counts every match, not only the page.
            let page = try await client.json(.get, "/v1/admin/jobs?limit=1", token: admin)
            #expect(Self.ids(page).count == 1 && page.object["total"] as? Int == 4 && page.object["totalIsLowerBound"] as? Bool == false)

            // Values a JSON writer may escape (a slash, a quote, non-ASCII) and a number inside
            // a longer one: the substring shortcut never decides them alone.
            let escaped = try await Self.enqueue(
                client, #"{"kind":"diagnostics.sleep","args":{"seconds":142,"note":"a/b \"c\" \u00e9"},"scheduledAt":"2097-01-01T00:00:00Z"}"#, admin: admin
            )
            #expect(try await list("args.note=a%2Fb%20%22c%22%20%C3%A9") == [escaped])
            #expect(try await list("args.seconds=142") == [escaped])
            #expect(try await list("args.seconds=14").isEmpty)
            // Arguments are shown with the audit log's redaction.
            let secret = try await Self.enqueue(
                client, #"{"kind":"diagnostics.sleep","args":{"seconds":1,"apiToken":"s3cret-value"},"scheduledAt":"2096-01-01T00:00:00Z"}"#, admin: admin
            )
            let shown = try await client.json(.get, "/v1/admin/jobs/\(secret)", token: admin)
            #expect((shown.object["args"] as? [String: Any])?["apiToken"] as? String == "[redacted]", "\(shown.body)")
            #expect(!shown.body.contains("s3cret-value"))
            #expect(!(try await client.json(.get, "/v1/admin/jobs?kind=diagnostics.sleep", token: admin)).body.contains("s3cret-value"))

            for bad in ["ids=x", "since=yesterday", "minAttempt=-1", "error=", "args.=1", "args.a..b=1"] {
                #expect(try await client.json(.get, "/v1/admin/jobs?\(bad)", token: admin).status == .badRequest, "\(bad)")
            }
        }
    }

    @Test(arguments: TestBackend.all) func bulkActionsSayWhatTheyDidAndWhatTheySkippedAndWhy(_ backend: TestBackend) async throws {
        let gateway = try await JobsRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.module.runtime
        try await gateway.withRouter { client async throws in
            var failed: [Int] = []
            for index in 0..<3 {
                failed.append(try await Self.enqueue(client, #"{"kind":"diagnostics.fail","args":{"message":"outage \#(index)"},"maxAttempts":1}"#, admin: admin))
            }
            let done = try await Self.enqueue(client, #"{"kind":"diagnostics.noop"}"#, admin: admin)
            _ = try await jobs.pool.drain()
            let later = try await Self.enqueue(client, #"{"kind":"diagnostics.noop","scheduledAt":"2099-01-01T00:00:00Z"}"#, admin: admin)

            // Retry everything discarded: the three failures.
            let retried = try await client.json(.post, "/v1/admin/jobs/bulk", body: #"{"action":"retry","filter":{"state":"discarded"}}"#, token: admin)
            #expect(retried.status == .ok, "\(retried.body)")
            #expect(retried.object["affected"] as? Int == 3 && retried.object["more"] as? Bool == false)
            for id in failed {
                let job = try await client.json(.get, "/v1/admin/jobs/\(id)", token: admin)
                #expect(job.object["state"] as? String == "available")
            }
            // Again: each is already available now.
            let again = try await client.json(.post, "/v1/admin/jobs/bulk", body: #"{"action":"retry","ids":[\#(failed[0])]}"#, token: admin)
            #expect((again.object["skipped"] as? [[String: Any]])?.first?["reason"] as? String == "already-available")

            // Cancel by ids: a finished job and an unknown id are skipped with their reasons.
            let cancelled = try await client.json(
                .post, "/v1/admin/jobs/bulk", body: #"{"action":"cancel","ids":[\#(failed[0]),\#(done),987654]}"#, token: admin)
            #expect(cancelled.object["affected"] as? Int == 1)
            let skipped = (cancelled.object["skipped"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "")=\($0["reason"] ?? "")" }
            #expect(skipped == ["\(done)=finished", "987654=not-found"])

            // Run now: only a waiting job moves.
            let ran = try await client.json(.post, "/v1/admin/jobs/bulk", body: #"{"action":"run-now","ids":[\#(later),\#(done)]}"#, token: admin)
            #expect(ran.object["affected"] as? Int == 1)
            #expect((ran.object["skipped"] as? [[String: Any]])?.first?["reason"] as? String == "not-waiting")
            let moved = try await client.json(.get, "/v1/admin/jobs/\(later)", token: admin)
            let scheduledAt = try #require((moved.object["scheduledAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
            #expect(scheduledAt <= gateway.clock.now())

            // Delete by an argument.
            let deleted = try await client.json(
                .post, "/v1/admin/jobs/bulk", body: #"{"action":"delete","filter":{"args":{"message":"outage 2"}}}"#, token: admin)
            #expect(deleted.object["affected"] as? Int == 1)
            #expect(try await client.json(.get, "/v1/admin/jobs/\(failed[2])", token: admin).status == .notFound)

            // Refused: no target, both targets, an unknown action, too many ids, a student.
            for body in [#"{"action":"retry"}"#, #"{"action":"retry","ids":[1],"filter":{}}"#, #"{"action":"explode","ids":[1]}"#,
                         #"{"action":"retry","ids":[]}"#, #"{"action":"retry","ids":[\#((1...1001).map(String.init).joined(separator: ","))]}"#] {
                #expect(try await client.json(.post, "/v1/admin/jobs/bulk", body: body, token: admin).status == .unprocessableContent, "\(body.prefix(60))")
            }
            let student = try await gateway.account("student1", role: .student)
            #expect(try await client.json(.post, "/v1/admin/jobs/bulk", body: #"{"action":"retry","ids":[1]}"#, token: student).status == .forbidden)
        }
    }

    @Test(arguments: TestBackend.all) func aFilterActsOnAThousandAtATimeAndSaysThereIsMore(_ backend: TestBackend) async throws {
        let gateway = try await JobsRoutesHarness.make(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let service = gateway.module.runtime.service
        for index in 0..<1_005 {
            _ = try await service.enqueue(NewJob(kind: "diagnostics.noop", rawArgs: Data(#"{"n":\#(index)}"#.utf8), runAt: Date(timeIntervalSinceNow: 86_400)))
        }
        try await gateway.withRouter { client async throws in
            let total = try await client.json(.get, "/v1/admin/jobs?kind=diagnostics.noop&limit=1", token: admin)
            #expect(total.object["total"] as? Int == 1_005)
            let first = try await client.json(.post, "/v1/admin/jobs/bulk", body: #"{"action":"delete","filter":{"kind":"diagnostics.noop"}}"#, token: admin)
            #expect(first.object["affected"] as? Int == 1_000 && first.object["more"] as? Bool == true, "\(first.body.prefix(200))")
            let rest = try await client.json(.post, "/v1/admin/jobs/bulk", body: #"{"action":"delete","filter":{"kind":"diagnostics.noop"}}"#, token: admin)
            #expect(rest.object["affected"] as? Int == 5 && rest.object["more"] as? Bool == false)
            #expect(try await client.json(.get, "/v1/admin/jobs?kind=diagnostics.noop", token: admin).object["total"] as? Int == 0)
        }
    }
}
