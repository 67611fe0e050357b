import Contracts
@testable import PostgresStores
@testable import SQLiteStores
import TestSupport
import Foundation
import GRDB
import Jobs
import Storage
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import SQLiteStorage
#endif

/// Runs the real `gateway` binary: kill -9 in the middle of jobs, restart, and check the store.
@Suite("Jobs survive kill -9; the CLI works on the same file", .serialized)
struct JobsCrashTests {
    static let password = "crash test passphrase 1"

    static func post(port: Int, _ path: String, body: String, token: String? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.timeoutInterval = 10
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }

    struct StoredJob {
        let id: Int64
        let state: String
        let attempt: Int
        let errors: String
        let finalized: Bool
    }

    /// A read-only view of the server's file from the test: no writer, no checkpointer thread
    /// (a `GatewayDatabase` here would checkpoint the server's log from this busy process).
    static func observer(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        return try DatabasePool(path: path, configuration: configuration)
    }

    static func jobs(_ database: DatabasePool) throws -> [StoredJob] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, state, attempt, errors, finalized_at IS NOT NULL FROM jobs WHERE kind = 'diagnostics.sleep' ORDER BY id").map {
                StoredJob(id: $0[0], state: $0[1], attempt: $0[2], errors: $0[3], finalized: $0[4])
            }
        }
    }

    @Test func killNineMidRunThenRestartCompletesEveryJobExactlyOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.sqlite").path
        let created = try await GatewayBinary.run([
            "admin", "create-user", "--database", path, "--username", "ops", "--role", "admin", "--password", Self.password,
        ])
        try #require(created.status == 0, "\(created.stderr)")
        // Leases renew every third of their length: 6 s leaves a loaded CI machine 4 s of slack
        // before a live job would be taken for a lost one.
        let arguments = ["--database", path, "--job-lease-seconds", "6", "--job-poll-ms", "50", "--job-queues", "default=4"]

        var server = try await ServingGateway.started(arguments: arguments)
        defer { server.kill9() }
        try #require(await server.waitUntilServing())
        let (status, issued) = try await Self.post(
            port: server.port, "/v1/auth/token", body: #"{"username":"ops","password":"\#(Self.password)"}"#)
        try #require(status == 201)
        let token = try #require(issued["token"] as? String)
        let total = 8
        // Queued while the queue is paused, then let go at once: on a loaded machine the eight
        // requests could otherwise outlast the first jobs, leaving nothing running to kill.
        let (paused, _) = try await Self.post(port: server.port, "/v1/admin/queues/default/pause", body: "{}", token: token)
        try #require(paused == 200 || paused == 204, "pause answered \(paused)")
        for _ in 0..<total {
            let (status, _) = try await Self.post(
                port: server.port, "/v1/admin/jobs", body: #"{"kind":"diagnostics.sleep","args":{"seconds":4}}"#, token: token)
            try #require(status == 201)
        }
        let (resumed, _) = try await Self.post(port: server.port, "/v1/admin/queues/default/resume", body: "{}", token: token)
        try #require(resumed == 200 || resumed == 204, "resume answered \(resumed)")

        let store = try Self.observer(path)
        try #require(try await eventually(seconds: 180) { try Self.jobs(store).contains { $0.state == "running" } })
        server.kill9()
        let atKill = try Self.jobs(store)
        let interrupted = Set(atKill.filter { $0.state == "running" }.map(\.id))
        #expect(!interrupted.isEmpty)
        // Jobs that finished before the kill are fine (one attempt each, checked below); what
        // matters is that some were interrupted mid-run.

        server = try await ServingGateway.started(arguments: arguments)
        try #require(await server.waitUntilServing())
        let finished = try await eventually(seconds: 120) { try Self.jobs(store).allSatisfy { $0.state == "completed" } }
        #expect(server.terminate() == 0)
        #expect(finished)

        let after = try Self.jobs(store)
        #expect(after.count == total)
        #expect(after.allSatisfy { $0.state == "completed" && $0.finalized })
        for job in after {
            if interrupted.contains(job.id) {
                // Claimed, lost with the process, reaped once, run again and completed once.
                #expect(job.attempt == 2, "job \(job.id)")
                #expect(job.errors.components(separatedBy: "lease expired").count - 1 == 1, "job \(job.id): \(job.errors)")
            } else {
                #expect(job.attempt == 1, "job \(job.id)")
                #expect(job.errors == "[]", "job \(job.id)")
            }
        }
        #expect(try await store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind = 'diagnostics.sleep' AND (state = 'running' OR lease_until IS NOT NULL)") } == 0)
    }

    @Test func jobsCommandListsRetriesAndCancels() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.sqlite").path
        // The schema as the gateway makes it (`gateway migrate`), then the test's own way in.
        let migrated = try await GatewayBinary.run(["migrate", "--database", path])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let database = try GatewayDatabase(path: path, modules: [])
        let (first, second) = try await database.pool.write { db in
            let now = Date()
            let a = try JobEnqueuer.enqueue(try NewJob(kind: "diagnostics.noop", args: NoPayload(), runAt: now.addingTimeInterval(3600)), in: db, now: now, signals: nil)
            let b = try JobEnqueuer.enqueue(try NewJob(kind: "diagnostics.fail", args: NoPayload(), queue: "ops"), in: db, now: now, signals: nil)
            return (a.id, b.id)
        }

        let cancelled = try await GatewayBinary.run(["jobs", "cancel", "\(first)", "--database", path])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.contains("cancelled"))
        let again = try await GatewayBinary.run(["jobs", "cancel", "\(first)", "--database", path])
        #expect(again.status != 0)
        #expect(again.stderr.contains("already cancelled"))
        let retried = try await GatewayBinary.run(["jobs", "retry", "\(first)", "--database", path])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stdout.contains("available"))

        let table = try await GatewayBinary.run(["jobs", "list", "--database", path])
        #expect(table.status == 0)
        #expect(table.stdout.contains("diagnostics.noop"))
        #expect(table.stdout.contains("diagnostics.fail"))
        let filtered = try await GatewayBinary.run(["jobs", "list", "--database", path, "--queue", "ops", "--json"])
        let lines = filtered.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(lines.first.map(String.init)?.utf8 ?? "".utf8)) as? [String: Any]
        #expect(object?["id"] as? Int == Int(second))
        #expect(try await GatewayBinary.run(["jobs", "list", "--database", path, "--state", "nope"]).status != 0)
    }
}
