import GatewayCore
import Contracts
import Foundation
import GradebookTestSupport
import GRDB
import Jobs
import Logging
@testable import PostgresStores
import Push
@testable import SQLiteStores
import Storage
import Synchronization
import Testing
import TestSupport
import SQLiteStorage
import PostgresStorage

/// The notification side of the crash drills: every drill student has a webhook device on a
/// loopback receiver (the seat-open notices the load's drops set off go there), and some keep a
/// stored gradebook account at a `gradebook-sim` process of the drill's own, which outlives the
/// kills. While the load runs, rounds of new scores are posted to the simulator and polled for,
/// one round at a time. Once the last server has drained, ``check(kills:)`` holds the outbox
/// and the receiver to the rules: every notification delivered, each score change told once per
/// student, and a notification received twice only when a kill came between its delivery and
/// the record of it (the `webhook-id` is the same, so the receiver can tell).
final class NotificationDrill: Sendable {
    /// What a drill reads and writes in the database behind the servers.
    struct Database: Sendable {
        /// A query's rows, each column as text (NULL is empty).
        var rows: @Sendable (String) async throws -> [[String]]
        /// Queues jobs, as the scheduler would.
        var enqueue: @Sendable ([NewJob]) async throws -> Void
    }

    /// One student's webhook device.
    struct Device: Sendable {
        var id: Int64
        var secret: Data
        var path: String
    }

    /// What ``check(kills:)`` found, for the drill's summary line.
    struct Summary: Sendable, CustomStringConvertible {
        var notifications = 0, seatNotices = 0, gradeNotices = 0, rounds = 0, received = 0, redelivered = 0

        var description: String {
            "\(notifications) notifications (seat open \(seatNotices), grades \(gradeNotices) from \(rounds) score rounds) all delivered; "
                + "\(received) webhook requests received, \(redelivered) of them a redelivery across a kill"
        }
    }

    static let sourceID = 9
    static let gradebookUser = "jdoe"
    static let gradebookPassword = "gradebook-test-1"

    let receiver: LoopbackReceiver
    let simulator: SimulatorProcess
    let database: Database
    private let state = Mutex(State())

    private struct State {
        var devices: [Int: Device] = [:]
        var gradebookAccounts: [Int: Int64] = [:]
        /// Score rounds posted; each one's polls are queued right after.
        var posted = 0
    }

    init(directory: URL, database: Database) throws {
        receiver = try LoopbackReceiver(behaviour: .answer, lifetime: .seconds(900))
        simulator = try SimulatorProcess(plainIn: directory, prefix: "", lifetime: 900)
        self.database = database
    }

    func stop() {
        receiver.stop()
        simulator.stop()
    }

    /// The source, each student's webhook device and hourly budget, and stored gradebook
    /// accounts for the first `gradebookStudents`; then the baseline poll of each account.
    func setUp(port: Int, admin: String, tokens: [String], gradebookStudents: Int) async throws {
        let source = await Drill.send(
            port: port, "PUT", "/v1/admin/gradebook/sources/\(Self.sourceID)",
            body: #"{"name":"Drill simulator","baseUrl":"http://127.0.0.1:\#(simulator.port)/grades.json","development":true,"#
                + #""requestsPerMinute":1000000,"maxConcurrency":16,"pollIntervalSeconds":86400}"#,
            token: admin
        )
        try #require(source?.status == 201, "the drill's gradebook source: \(source?.body ?? "no answer")")
        for (n, token) in tokens.enumerated() {
            let path = "/hook/s\(n)"
            let made = await Drill.send(port: port, "POST", "/v1/me/devices", body: #"{"channel":"webhook","url":"\#(receiver.url(path))"}"#, token: token)
            let id = try #require((made?.object["device"] as? [String: Any])?["id"] as? Int, "student \(n)'s webhook: \(made?.body ?? "no answer")")
            let display = try #require(made?.object["webhookSecret"] as? String)
            let secret = try #require(WebhookSecret(displayValue: display), "a whsec_ secret")
            state.withLock { $0.devices[n] = Device(id: Int64(id), secret: secret.bytes, path: path) }
            // Room for every notice of the drill in the hour: none deferred past its end.
            let budget = await Drill.send(port: port, "PUT", "/v1/me/push-preferences", body: #"{"maxPerHour":600}"#, token: token)
            try #require(budget?.status == 200, "student \(n)'s preferences: \(budget?.body ?? "no answer")")
        }
        for n in 0..<gradebookStudents {
            let stored = await Drill.send(
                port: port, "POST", "/v1/me/gradebook-accounts",
                body: #"{"sourceId":\#(Self.sourceID),"username":"\#(Self.gradebookUser)","password":"\#(Self.gradebookPassword)"}"#, token: tokens[n]
            )
            let id = try #require(stored?.object["id"] as? Int, "student \(n)'s gradebook account: \(stored?.body ?? "no answer")")
            state.withLock { $0.gradebookAccounts[n] = Int64(id) }
        }
        // The first poll of an account records what it holds and tells nobody.
        try await pollRound(0)
        try #require(await roundCompleted(0, waitingUp: 60, while: { true }), "the baseline polls completed")
    }

    /// The load's grade task: a new score for the gradebook user, a poll of every stored
    /// account, and the next round only once those polls completed (the servers come and go).
    func scoreRounds(running: @escaping @Sendable () -> Bool, unexpected: @escaping @Sendable (String) -> Void) async {
        var round = 0
        while running() {
            round += 1
            // Labs 1 and 2 (out of 10) by turns, a score no round used before: a change each time.
            let posted = await Drill.send(
                port: simulator.port, "POST", "/_admin/scores",
                body: #"{"term":2152,"course":"458","user":"\#(Self.gradebookUser)","assignment":\#(1 + round % 2),"score":\#(Double(round) / 8),"counts":true}"#,
                token: simulator.adminToken
            )
            guard posted?.status == 201 else {
                unexpected("the simulator refused round \(round)'s score: \(posted?.status ?? 0) \(posted?.body.prefix(120) ?? "")")
                return
            }
            do {
                try await pollRound(round)
            } catch {
                unexpected("round \(round)'s polls could not be queued: \(error)")
                return
            }
            state.withLock { $0.posted = round }
            _ = await roundCompleted(round, waitingUp: 120, while: running)
        }
    }

    /// One `gradebook.poll-account` per stored account, keyed by the round.
    private func pollRound(_ round: Int) async throws {
        let accounts = state.withLock { $0.gradebookAccounts.values.sorted() }
        try await database.enqueue(try accounts.map { account in
            try NewJob(
                GradebookJobs.pollAccount, GradebookJobs.PollAccount(gradebookAccountId: account), maxAttempts: 10,
                uniqueKey: "drill-poll:\(round):\(account)"
            )
        })
    }

    /// Whether every poll of `round` completed within `seconds` (checked while `condition` holds).
    private func roundCompleted(_ round: Int, waitingUp seconds: Int, while condition: @Sendable () -> Bool) async -> Bool {
        let accounts = state.withLock { $0.gradebookAccounts.count }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline, condition() {
            let done = try? await database.rows(
                "SELECT count(*) FROM jobs WHERE unique_key LIKE 'drill-poll:\(round):%' AND state = 'completed'"
            ).first?.first
            if done == String(accounts) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// With a server running again after the load: waits (up to 90 s) until every round's polls
    /// completed and no push job is left, then checks the outbox and what the receiver got.
    /// `kills`: when each kill was sent.
    @discardableResult
    func check(kills: [ContinuousClock.Instant], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Summary {
        let (devices, accounts, posted) = state.withLock { ($0.devices, $0.gradebookAccounts, $0.posted) }
        let deviceList = devices.values.map { String($0.id) }.joined(separator: ",")
        let drained = try await eventually(seconds: 120) { [database] in
            let polls = try await database.rows(
                "SELECT count(*) FROM jobs WHERE unique_key LIKE 'drill-poll:%' AND state <> 'completed'"
            ).first?.first
            // (Jobs due later, such as the scheduler's own polls of the day, are not work left.)
            let push = try await database.rows(
                "SELECT count(*) FROM jobs WHERE kind LIKE 'push.%' AND state IN ('available', 'running', 'retryable')"
            ).first?.first
            // A delivery waiting its turn (snoozed while its host's slots were taken) is due
            // again shortly: its notification is still pending.
            let pending = try await database.rows(
                "SELECT count(*) FROM push_notifications WHERE device_id IN (\(deviceList)) AND state = 'pending'"
            ).first?.first
            if polls == "0" && push == "0" && pending == "0" { return true }
            try await Task.sleep(for: .milliseconds(200))
            return false
        }
        if !drained {
            let left = try await database.rows(
                "SELECT kind, state, count(*) FROM jobs WHERE kind LIKE 'push.%' OR kind LIKE 'gradebook.%' GROUP BY kind, state"
            )
            Issue.record("every poll, push job and delivery ended within 120 s; jobs: \(left.map { $0.joined(separator: " ") })", sourceLocation: sourceLocation)
        }

        let rows = try await database.rows(
            "SELECT id, device_id, category, state, unique_key FROM push_notifications WHERE device_id IN (\(deviceList)) ORDER BY id"
        )
        var summary = Summary(rounds: posted)
        summary.notifications = rows.count
        let students = Dictionary(uniqueKeysWithValues: devices.map { ($0.value.id, $0.key) })
        var gradeKeys: [Int: [String]] = [:]
        var expected: [String: String] = [:] // webhook-id to the path it goes to
        for row in rows {
            guard row.count >= 5, let device = Int64(row[1]), let n = students[device] else { continue }
            #expect(row[3] == "delivered", "notification \(row[0]) (\(row[2])) ended \(row[3])", sourceLocation: sourceLocation)
            expected["n\(row[0])"] = devices[n]?.path
            if row[2].hasPrefix("grade.") {
                summary.gradeNotices += 1
                gradeKeys[n, default: []].append(row[4])
            } else if row[2] == "seat.open" {
                summary.seatNotices += 1
            }
        }
        // Each score change once per stored account: as many grade notices as rounds (a change
        // told twice under two keys, or never, breaks the count).
        for n in accounts.keys.sorted() {
            let keys = gradeKeys[n] ?? []
            #expect(keys.count == posted, "student \(n): \(keys.count) grade notices for \(posted) score rounds: \(keys)", sourceLocation: sourceLocation)
        }
        #expect(summary.seatNotices > 0, "the load's drops told waiting students of open seats", sourceLocation: sourceLocation)

        // What the receiver got: signed with the device's secret, for a notification of the
        // outbox, every one of them, and again only across a kill.
        let secrets = Dictionary(uniqueKeysWithValues: devices.values.map { ($0.path, $0.secret) })
        var arrivals: [String: [ContinuousClock.Instant]] = [:]
        for request in receiver.requests {
            let parts = request.requestLine.split(separator: " ")
            let path = parts.count > 1 ? String(parts[1]) : ""
            let id = request.headers["webhook-id"] ?? ""
            summary.received += 1
            #expect(expected[id] == path, "a delivery of \(id) to \(path) that the outbox doesn't hold for that device", sourceLocation: sourceLocation)
            if let secret = secrets[path] {
                #expect(
                    (try? WebhookSignature.verify(
                        id: id, timestamp: request.headers["webhook-timestamp"] ?? "", body: request.body,
                        signatures: request.headers["webhook-signature"] ?? "", secret: secret, now: Date()
                    )) != nil,
                    "delivery of \(id) to \(path) is signed with the device's secret", sourceLocation: sourceLocation
                )
            }
            arrivals["\(path) \(id)", default: []].append(request.arrived)
        }
        for (id, path) in expected {
            #expect(arrivals["\(path) \(id)"] != nil, "notification \(id) was never received at \(path)", sourceLocation: sourceLocation)
        }
        for (key, times) in arrivals where times.count > 1 {
            let sorted = times.sorted()
            for (first, again) in zip(sorted, sorted.dropFirst()) {
                // Delivered, then the server died before it could record that: the kill came
                // just after the first arrival and before the second.
                let across = kills.contains { kill in kill > first - .milliseconds(500) && kill < first + .seconds(3) && kill < again }
                #expect(across, "\(key) was delivered twice with no kill in between", sourceLocation: sourceLocation)
                summary.redelivered += 1
            }
        }
        return summary
    }
}

extension NotificationDrill.Database {
    /// The drill's own way into the server's SQLite file (WAL: it reads and queues jobs beside
    /// the server, as an operator's command would).
    static func sqlite(_ path: String) throws -> Self {
        let database = try GatewayDatabase(path: path, modules: [], readers: 2)
        let enqueuer = SQLiteJobEnqueuer(signals: JobSignals())
        return Self(
            rows: { sql in
                try await database.pool.read { db in
                    try Row.fetchAll(db, sql: sql).map { row in
                        row.databaseValues.map { value in
                            switch value.storage {
                            case .null: ""
                            case .int64(let number): String(number)
                            case .double(let number): String(number)
                            case .string(let text): text
                            case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
                            }
                        }
                    }
                }
            },
            enqueue: { jobs in
                try await database.write { transaction in
                    for job in jobs { _ = try enqueuer.enqueue(job, in: transaction, now: Date()) }
                }
            }
        )
    }

    /// Reads through psql; queues through a small pool of the drill's own (returned, for the
    /// drill to shut down).
    static func postgres(_ cluster: ScratchPostgres, database name: String, url: String) throws -> (Self, GatewayPostgres) {
        var logger = Logger(label: "notification-drill")
        logger.logLevel = .critical
        let pool = GatewayPostgres(settings: try PostgresSettings(url: url), connections: 2, logger: logger)
        pool.start()
        let enqueuer = PostgresJobEnqueuer()
        let database = Self(
            rows: { sql in try await Drill.offThread { try cluster.rows(sql, database: name) } },
            enqueue: { jobs in
                try await pool.write { transaction in
                    for job in jobs { _ = try enqueuer.enqueue(job, in: transaction, now: Date()) }
                }
            }
        )
        return (database, pool)
    }
}
