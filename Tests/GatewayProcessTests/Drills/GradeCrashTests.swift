import Contracts
import Foundation
import GRDB
import Jobs
@testable import PostgresStores
@testable import SQLiteStores
import Storage
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
import SQLiteStorage
#endif

/// The real `gateway serve --demo`, killed with SIGKILL after a poll found a new score and
/// before its notification went out: after the restart the student is told exactly once, and
/// polling again tells nobody.
@Suite("Grade notifications survive kill -9", .serialized)
struct GradeCrashTests {
    static let simulatorToken = "crash-test-simulator-token"

    static func request(
        port: Int, _ method: String, _ path: String, body: String? = nil, contentType: String = "application/json", token: String? = nil
    ) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let body { request.httpBody = Data(body.utf8) }
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.timeoutInterval = 15
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }

    /// Queues one poll of every followed student now, as the scheduler would (from this test
    /// process, into the server's database file: its workers look for work every 50 ms).
    static func enqueuePolls(_ database: GatewayDatabase, tag: String) throws {
        try database.pool.write { db in
            let pairs = try Row.fetchAll(db, sql: "SELECT gradebook_account_id, student_id FROM push_device_students")
            for pair in pairs {
                let args = GradebookJobs.Poll(deviceAccountId: pair[0], student: pair[1])
                _ = try JobEnqueuer.enqueue(try NewJob(GradebookJobs.poll, args, uniqueKey: "crash-test:\(tag)"), in: db, now: Date(), signals: nil)
            }
        }
    }

    /// Waits (bounded: 60 s) until `condition` holds on the database.
    static func waitUntil(_ database: GatewayDatabase, _ what: String, _ condition: @escaping (Database) throws -> Bool) async throws {
        for _ in 0..<600 {
            if try database.pool.read(condition) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting until \(what)")
    }

    static func postScore(port: Int) async throws -> Int {
        try await Self.request(
            port: port, "POST", "/sim/gradebook/_admin/scores",
            body: #"{"term": 2152, "course": "458", "user": "jdoe", "assignment": 1, "score": 9.5, "displayScore": "9.5/10", "counts": true, "postDate": 1424000000}"#,
            token: Self.simulatorToken
        ).0
    }

    static func count(_ database: GatewayDatabase, _ sql: String) throws -> Int {
        try database.pool.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test func killedBetweenTheDiffAndTheDeliveryStillNotifiesOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grade-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.sqlite").path
        let arguments = ["--demo", "--demo-passwords", "documented", "--database", path, "--job-poll-ms", "50"]
        let environment = ["GATEWAY_SIMULATOR_ADMIN_TOKEN": Self.simulatorToken]

        var server = try await ServingGateway.started(arguments: arguments, environment: environment)
        defer { server.kill9() }
        try #require(await server.waitUntilServing(seconds: 60))
        let (issuedStatus, issued) = try await Self.request(
            port: server.port, "POST", "/v1/auth/token", body: #"{"username": "admin", "password": "demo-admin-pass"}"#
        )
        try #require(issuedStatus == 201)
        let admin = try #require(issued["token"] as? String)
        let form = "application/x-www-form-urlencoded"
        let uuid = "crash-\(UUID().uuidString)"
        for (path, body) in [
            ("/ios/register", "uuid=\(uuid)"), ("/ios/account_add", "uuid=\(uuid)&user=test&pass=gradebook-test-1&district=1"),
            ("/ios/student_add", "uuid=\(uuid)&user=test&id=jdoe"),
        ] {
            #expect(try await Self.request(port: server.port, "POST", path, body: body, contentType: form).0 == 200, "\(path)")
        }
        let database = try GatewayDatabase(path: path, modules: [])

        // The baseline.
        try Self.enqueuePolls(database, tag: "baseline")
        try await Self.waitUntil(database, "the baseline poll completed") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE unique_key = 'crash-test:baseline' AND state = 'completed'") == 1
        }

        // Notifications wait (the push queue is paused; polls have their own queue). A new score,
        // a poll: the diff is committed with its `push.grade-changed` job, and then the server dies.
        #expect(try await Self.request(port: server.port, "POST", "/v1/admin/queues/push/pause", token: admin).0 == 200)
        #expect(try await Self.postScore(port: server.port) == 201)
        try Self.enqueuePolls(database, tag: "after-score")
        try await Self.waitUntil(database, "the poll found the change") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind = 'push.grade-changed'") == 1
        }
        server.kill9()
        #expect(try Self.count(database, "SELECT COUNT(*) FROM push_notifications") == 0, "nothing was sent before the crash")

        // Restarted: the change is delivered once.
        server = try await ServingGateway.started(arguments: arguments, environment: environment)
        try #require(await server.waitUntilServing(seconds: 60))
        // The simulator lives in the server's memory: give it back the score a real gradebook
        // would still have (the same id and content, so the same change).
        #expect(try await Self.postScore(port: server.port) == 201)
        #expect(try await Self.request(port: server.port, "POST", "/v1/admin/queues/push/resume", token: admin).0 == 200)
        try await Self.waitUntil(database, "the notification was delivered") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_notifications WHERE state = 'delivered'") == 1
        }

        // Polling again finds nothing new.
        try Self.enqueuePolls(database, tag: "again")
        try await Self.waitUntil(database, "the last poll completed") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE unique_key = 'crash-test:again' AND state = 'completed'") == 1
        }
        // Whatever that poll could have set off has run: no push job is waiting or running.
        try await Self.waitUntil(database, "the push queue is idle") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind LIKE 'push.%' AND state IN ('available', 'scheduled', 'running', 'retryable')") == 0
        }
        #expect(try Self.count(database, "SELECT COUNT(*) FROM push_notifications") == 1)
        #expect(try Self.count(database, "SELECT COUNT(*) FROM jobs WHERE kind = 'push.grade-changed'") == 1)
        let body = try await database.pool.read { db in try String.fetchOne(db, sql: "SELECT body FROM push_notifications") }
        #expect(body?.contains("9.5/10") == true)
        #expect(server.terminate() == 0)
    }
}
