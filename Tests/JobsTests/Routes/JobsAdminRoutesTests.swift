import Contracts
import TestSupport
import GatewayHTTP
import Foundation
import GatewayCore
import Hummingbird
import HummingbirdTesting
import Jobs
import Testing

@Suite("Jobs admin endpoints")
struct JobsAdminRoutesTests {
    /// The Jobs module alone on a router, its workers off: tests run jobs with `drain()`.
    static func gateway(_ backend: TestBackend) async throws -> JobsRoutesHarness {
        try await JobsRoutesHarness.make(backend)
    }

    static func items(_ reply: HTTPReply) -> [[String: Any]] { reply.object["items"] as? [[String: Any]] ?? [] }

    @Test(arguments: TestBackend.all) func onlyAdminsReachTheJobEndpoints(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let student = try await gateway.account("student1", role: .student)
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/admin/jobs").status == .unauthorized)
            #expect(try await client.json(.get, "/v1/admin/jobs", token: student).status == .forbidden)
            #expect(try await client.json(.get, "/v1/admin/queues", token: student).status == .forbidden)
            #expect(try await client.json(.post, "/v1/admin/schedules/x/run", token: student).status == .forbidden)
        }
    }

    @Test(arguments: TestBackend.all) func diagnosticJobsRunEndToEndAndShowInTheAdminViews(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.module.runtime
        try await gateway.withRouter { client async throws in
            let noop = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop"}"#, token: admin)
            #expect(noop.status == .created)
            #expect(noop.object["state"] as? String == "available")
            for key in ["id", "kind", "queue", "state", "attempt", "maxAttempts", "priority", "args", "errors", "uniqueKey",
                        "scheduledAt", "attemptedAt", "attemptedBy", "finalizedAt", "createdAt"] {
                #expect(noop.object.keys.contains(key), "job JSON lacks \(key)")
            }
            let sleep = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.sleep","args":{"seconds":0}}"#, token: admin)
            #expect(sleep.status == .created)
            #expect((sleep.object["args"] as? [String: Any])?["seconds"] as? Int == 0)
            let fail = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.fail","args":{"message":"on purpose"},"maxAttempts":1,"uniqueKey":"f1"}"#,
                token: admin)
            #expect(fail.status == .created)
            let again = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.fail","maxAttempts":1,"uniqueKey":"f1"}"#, token: admin)
            #expect(again.status == .ok)
            #expect(again.object["id"] as? Int == fail.object["id"] as? Int)

            try await jobs.pool.drain()

            let failID = fail.object["id"] as! Int
            let detail = try await client.json(.get, "/v1/admin/jobs/\(failID)", token: admin)
            #expect(detail.status == .ok)
            #expect(detail.object["state"] as? String == "discarded")
            let errors = detail.object["errors"] as? [[String: Any]] ?? []
            #expect(errors.count == 1)
            #expect(errors.first?["error"] as? String == "on purpose")
            #expect(errors.first?["attempt"] as? Int == 1)
            #expect(detail.object["attemptedBy"] as? String == jobs.pool.workerID)

            let completed = try await client.json(.get, "/v1/admin/jobs?state=completed", token: admin)
            #expect(Set(Self.items(completed).compactMap { $0["kind"] as? String }) == ["diagnostics.noop", "diagnostics.sleep"])
            let byKind = try await client.json(.get, "/v1/admin/jobs?kind=diagnostics.fail&queue=default", token: admin)
            #expect(Self.items(byKind).count == 1)
            #expect(try await client.json(.get, "/v1/admin/jobs?state=bogus", token: admin).status == .badRequest)

            let queues = try await client.json(.get, "/v1/admin/queues", token: admin)
            let queue = Self.items(queues).first { $0["name"] as? String == "default" }
            #expect((queue?["counts"] as? [String: Int])?["completed"] == 2)
            #expect((queue?["counts"] as? [String: Int])?["discarded"] == 1)
            #expect(queue?["completedLastHour"] as? Int == 2)
            #expect(queue?["failedLastDay"] as? Int == 1)
            #expect(queue?["paused"] as? Bool == false)
            #expect(queue?["unworked"] as? Bool == false, "this process works the default queue")

            // A queue nothing works: its waiting job is flagged.
            let orphan = try await client.json(
                .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","queue":"nobody-works-this"}"#, token: admin
            )
            #expect(orphan.status == .created)
            let after = try await client.json(.get, "/v1/admin/queues", token: admin)
            let unworked = Self.items(after).first { $0["name"] as? String == "nobody-works-this" }
            #expect(unworked?["unworked"] as? Bool == true)
            #expect(unworked?["limit"] is NSNull, "this process does not work it: limit is there, and null")

            // Only a queue that exists can be paused: a made-up name is 404 and leaves nothing behind.
            #expect(try await client.json(.post, "/v1/admin/queues/made-up-queue/pause", token: admin).status == .notFound)
            #expect(try await client.json(.post, "/v1/admin/queues/made-up-queue/resume", token: admin).status == .notFound)
            let listed = try await client.json(.get, "/v1/admin/queues", token: admin)
            #expect(!Self.items(listed).contains { $0["name"] as? String == "made-up-queue" })
            let paused = try await client.json(.post, "/v1/admin/queues/nobody-works-this/pause", token: admin)
            #expect(paused.status == .ok && paused.object["paused"] as? Bool == true)
            // A kind's declared queue can be paused before any job of it exists.
            let push = try await client.json(.post, "/v1/admin/queues/push/pause", token: admin)
            #expect(push.status == .ok && push.object["paused"] as? Bool == true)
            #expect(try await client.json(.post, "/v1/admin/queues/push/resume", token: admin).object["paused"] as? Bool == false)
        }
    }

    @Test(arguments: TestBackend.all) func refusesKindsAdminsMayNotEnqueueAndBadBodies(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        gateway.module.runtime.registry.register(kind: "internal.thing", args: NoPayload.self) { _, _ in .complete }
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"internal.thing"}"#, token: admin).status == .unprocessableContent)
            #expect(try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","args":[1]}"#, token: admin).status == .unprocessableContent)
            #expect(try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","queue":"bad queue"}"#, token: admin).status == .unprocessableContent)
            #expect(try await client.json(.post, "/v1/admin/jobs", body: #"{"args":{}}"#, token: admin).status == .badRequest)
            // Arguments are checked against the kind at enqueue, not found wrong on every attempt.
            for (args, named) in [("{}", "Missing field 'args.seconds'"), (#"{"seconds":"x"}"#, "'args.seconds' should be a number"), (#"{"seconds":99999}"#, "between 0 and 3600")] {
                let refused = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.sleep","args":\#(args)}"#, token: admin)
                #expect(refused.status == .unprocessableContent, "\(args)")
                #expect((refused.object["detail"] as? String ?? "").contains(named), "\(refused.object)")
            }
            #expect(try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.sleep","args":{"seconds":0}}"#, token: admin).status == .created)
            // A priority past 32 bits (PostgreSQL's column) is refused on both backends, naming
            // the field (the fuzzer's 46493927386 was a 500 on PostgreSQL); the bounds are taken.
            for (priority, status) in [("46493927386", HTTPResponse.Status.unprocessableContent), ("-1000001", .unprocessableContent), ("1000000", .created), ("-1000000", .created)] {
                let reply = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","priority":\#(priority)}"#, token: admin)
                #expect(reply.status == status, "priority \(priority): \(reply.body)")
                if status == .unprocessableContent { #expect(reply.object["invalidFields"] as? [String] == ["priority"]) }
            }
            // Arguments with a NUL (which PostgreSQL's jsonb can't hold as text) and other control
            // characters or odd keys are stored as sent on both backends and come back unchanged.
            let nul = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","args":{"note":"a\u0000b"}}"#, token: admin)
            #expect(nul.status == .created, "\(nul.body)")
            #expect((nul.object["args"] as? [String: Any])?["note"] as? String == "a\u{0}b", "\(nul.body)")
            let odd = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","args":{"\u00b7":{"\u0007":"K","":true},"x":[[4216641405013269.0],[null,-165108296,null]]}}"#, token: admin)
            #expect(odd.status == .created, "\(odd.body)")
            #expect(try await client.json(.get, "/v1/admin/jobs/999", token: admin).status == .notFound)
            #expect(try await client.json(.get, "/v1/admin/jobs/abc", token: admin).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.all) func paginatesRetriesCancelsAndDeletes(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        try await gateway.withRouter { client async throws in
            var ids: [Int] = []
            for _ in 0..<5 {
                let reply = try await client.json(
                    .post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop","scheduledAt":"2099-01-01T00:00:00Z"}"#, token: admin)
                #expect(reply.object["state"] as? String == "scheduled")
                ids.append(reply.object["id"] as! Int)
            }
            var seen: [Int] = []
            var cursor: String?
            repeat {
                let uri = "/v1/admin/jobs?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await client.json(.get, uri, token: admin)
                #expect(page.status == .ok)
                seen += Self.items(page).compactMap { $0["id"] as? Int }
                cursor = page.object["nextCursor"] as? String
            } while cursor != nil
            #expect(seen == ids.reversed())
            #expect(try await client.json(.get, "/v1/admin/jobs?cursor=garbage", token: admin).status == .badRequest)

            let retried = try await client.json(.post, "/v1/admin/jobs/\(ids[0])/retry", token: admin)
            #expect(retried.status == .ok)
            #expect(retried.object["state"] as? String == "available")
            let cancelled = try await client.json(.post, "/v1/admin/jobs/\(ids[1])/cancel", token: admin)
            #expect(cancelled.object["state"] as? String == "cancelled")
            #expect(try await client.json(.post, "/v1/admin/jobs/\(ids[1])/cancel", token: admin).status == .conflict)
            #expect(try await client.json(.delete, "/v1/admin/jobs/\(ids[2])", token: admin).status == .noContent)
            #expect(try await client.json(.get, "/v1/admin/jobs/\(ids[2])", token: admin).status == .notFound)
            #expect(try await client.json(.post, "/v1/admin/jobs/424242/retry", token: admin).status == .notFound)
        }
    }

    @Test(arguments: TestBackend.all) func pausesResumesQueuesAndManagesSchedules(_ backend: TestBackend) async throws {
        let gateway = try await Self.gateway(backend)
        defer { gateway.cleanUp() }
        let admin = try await gateway.account("admin1", role: .admin)
        let jobs = gateway.module.runtime
        try await jobs.service.schedules.sync(
            [ScheduleDefinition(name: "nightly-noop", kind: "diagnostics.noop", rule: try .cron("0 3 * * *"))],
            now: gateway.clock.now(), timeZone: TimeZone(identifier: "UTC")!
        )
        try await gateway.withRouter { client async throws in
            let paused = try await client.json(.post, "/v1/admin/queues/default/pause", token: admin)
            #expect(paused.status == .ok)
            #expect(paused.object["paused"] as? Bool == true)
            _ = try await client.json(.post, "/v1/admin/jobs", body: #"{"kind":"diagnostics.noop"}"#, token: admin)
            #expect(try await jobs.pool.drain().isEmpty)
            let resumed = try await client.json(.post, "/v1/admin/queues/default/resume", token: admin)
            #expect(resumed.object["paused"] as? Bool == false)
            #expect(try await jobs.pool.drain().count == 1)

            let schedules = try await client.json(.get, "/v1/admin/schedules", token: admin)
            let nightly = Self.items(schedules).first
            #expect(nightly?["name"] as? String == "nightly-noop")
            #expect(nightly?["cron"] as? String == "0 3 * * *")
            #expect(nightly?["enabled"] as? Bool == true)
            #expect(nightly?["nextRunAt"] as? String != nil)
            let disabled = try await client.json(.post, "/v1/admin/schedules/nightly-noop/disable", token: admin)
            #expect(disabled.object["enabled"] as? Bool == false)
            let enabled = try await client.json(.post, "/v1/admin/schedules/nightly-noop/enable", token: admin)
            #expect(enabled.object["enabled"] as? Bool == true)
            let run = try await client.json(.post, "/v1/admin/schedules/nightly-noop/run", token: admin)
            #expect(run.status == .created)
            #expect(run.object["kind"] as? String == "diagnostics.noop")
            #expect(try await client.json(.post, "/v1/admin/schedules/missing/run", token: admin).status == .notFound)
            let after = try await client.json(.get, "/v1/admin/schedules", token: admin)
            #expect(Self.items(after).first?["lastJobId"] as? Int == run.object["id"] as? Int)
        }
    }
}
