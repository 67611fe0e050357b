import Foundation
import GatewayApp
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
import Jobs
import Push
import Storage
import Synchronization
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A failed delivery is retried to the end, through the real job queue and the real channels,
/// on loopback: a webhook answers 503 with `Retry-After`, the SMTP server answers 451, APNs
/// answers 503 ServiceUnavailable. Each delivery fails once and waits (its job retryable, due
/// after the backoff the queue chose: the webhook's own Retry-After, the others' exponential
/// backoff); then the peers are well again, the test clock moves to the time the retries are
/// due, and each notification arrives exactly once: the webhook with the same `webhook-id` as
/// the failed attempt, the mail once, APNs once with the same notification. (The upstream fault
/// drill does this at scale, with every kind of fault; this is its `make test` size.)
@Suite("Failed deliveries are retried once due", .serialized)
struct DeliveryRetryTests {
    static let smtpPassword = "smtp-retry-secret"
    static let apnsToken = String(repeating: "ab", count: 32)
    /// The webhook's Retry-After while it fails, in seconds.
    static let webhookRetryAfter = 120

    @Test func aFailedWebhookMailAndAPNsDeliveryEachArriveOnceAfterTheBackoff() async throws {
        let webhook = try FlakyWebhook(retryAfter: Self.webhookRetryAfter)
        defer { webhook.stop() }
        let smtp = try SMTPStandIn(username: "gateway", password: Self.smtpPassword)
        defer { smtp.stop() }
        let apns = try APNsStandInProcess()
        defer { apns.stop() }
        let gateway = try TestGateway { config in
            config.allowInsecurePushEndpoints = true
            config.publicURL = URL(string: "https://gateway.example.edu/")
            config.smtp = SMTPSettings(
                url: smtp.url, from: "gateway@campus.example.edu", username: "gateway", password: Self.smtpPassword, caFile: smtp.caFile
            )
            config.apns = APNsSettings(
                keyFile: APNsWiringTests.keyFile, keyID: APNsStandInProcess.keyID, teamID: APNsStandInProcess.teamID,
                baseURL: apns.baseURL, caFile: apns.caFile
            )
        }
        defer { gateway.cleanUp() }
        let pool = gateway.app.modules.jobs.runtime.pool
        let workers = Task { try await pool.run() }
        defer { workers.cancel() }

        // One device per channel, each its own student's; the email address confirmed with the
        // code its confirmation mail brought (delivered while the SMTP server is well).
        let devices = try await Self.registerDevices(gateway, webhook: webhook, smtp: smtp)
        let mailsBefore = smtp.messages().count

        // The peers fail; one notification to each device.
        webhook.failing = true
        try smtp.reply(with: "451 4.3.0 Try again later")
        try apns.answer("503 ServiceUnavailable")
        for (channel, id) in devices {
            // A UUID, as a real event's.
            let note = OutgoingNotification(id: UUID().uuidString.lowercased(), category: "seat.open", title: "Seat open", body: "CS 101 has a seat (\(channel))", urgent: true)
            #expect(try await gateway.app.modules.push.push.notify(deviceID: id, uniqueKey: "retry-\(channel)", note), "\(channel) queued")
        }
        // Each delivery was tried once, failed, and waits for another attempt.
        let failedOnce = await eventually(seconds: 60) {
            let stored = (try? await Self.notifications(gateway, devices)) ?? [:]
            let jobs = (try? await Self.jobs(gateway)) ?? []
            return stored.count == devices.count && stored.values.allSatisfy { $0.state == .pending && $0.attempts == 1 && $0.lastError != nil }
                && jobs.count == devices.count && jobs.allSatisfy { $0.state == "retryable" && $0.attempt == 1 }
        }
        let failed = try await Self.notifications(gateway, devices)
        #expect(failedOnce, "every delivery failed once and waits: \(failed.mapValues { "\($0.state) after \($0.attempts): \($0.lastError ?? "-")" })")
        #expect(webhook.requests.map(\.status) == [503], "the webhook's one failed attempt")
        #expect(try apns.records().map(\.status) == [503], "APNs' one failed attempt")
        #expect(smtp.messages().count == mailsBefore, "the SMTP server kept nothing it refused")

        // The queue backs off: each job is due again after its attempt, the webhook's after its
        // own Retry-After exactly, the others' after the first step of the exponential backoff.
        let jobs = try await Self.jobs(gateway)
        let backoff = JobsConfiguration().backoff.bounds(afterAttempt: 1)
        for job in jobs {
            let wait = TimeInterval(job.runAt - job.attemptedAt) / 1000
            if job.notificationID == failed["webhook"]?.id {
                #expect(wait == TimeInterval(Self.webhookRetryAfter), "the webhook's Retry-After is its wait: \(wait) s")
            } else {
                #expect(backoff.contains(wait), "job \(job.id) waits \(wait) s, within the backoff's \(backoff)")
            }
        }

        // The peers are well again; the clock moves to when the last retry is due.
        webhook.failing = false
        try smtp.reply(with: nil)
        try apns.answer(nil)
        let due = try #require(jobs.map(\.runAt).max())
        gateway.clock.set(Date(timeIntervalSince1970: TimeInterval(due) / 1000))
        let delivered = await eventually(seconds: 60) {
            let stored = (try? await Self.notifications(gateway, devices)) ?? [:]
            let jobs = (try? await Self.jobs(gateway)) ?? []
            return stored.count == devices.count && stored.values.allSatisfy { $0.state == .delivered }
                && jobs.count == devices.count && jobs.allSatisfy { $0.state == "completed" }
        }
        let final = try await Self.notifications(gateway, devices)
        #expect(delivered, "every notification was delivered on its second attempt: \(final.mapValues { "\($0.state) after \($0.attempts)" })")
        #expect(final.values.allSatisfy { $0.attempts == 2 }, "\(final.mapValues(\.attempts))")
        #expect(try await Self.jobs(gateway).allSatisfy { $0.attempt == 2 })

        // Each arrived exactly once.
        let hooks = webhook.requests
        #expect(hooks.map(\.status) == [503, 204], "the webhook: one failed attempt, then one delivery")
        let ids = hooks.map { $0.headers["webhook-id"] ?? "" }
        #expect(ids.count == 2 && !ids[0].isEmpty && ids[0] == ids[1], "the retry carries the failed attempt's webhook-id: \(ids)")
        let mails = smtp.messages().dropFirst(mailsBefore)
        #expect(mails.count == 1, "one mail: \(mails.map(\.text))")
        #expect(mails.first?.text.contains("CS 101 has a seat (email)") == true)
        let pushes = try apns.records()
        #expect(pushes.map(\.status) == [503, 200], "APNs: one failed attempt, then one delivery")
        #expect(pushes.count == 2 && pushes[0].payload == pushes[1].payload, "the retry sends the same notification: \(pushes.map(\.payload))")
        #expect(pushes.last?.payload.contains("CS 101 has a seat (apns)") == true)

        // And never again: the clock moves a day on; once the queue has run work that came due
        // meanwhile (its schedules' jobs), each peer still has what it had.
        let chores = try await Self.otherJobsCompleted(gateway)
        gateway.clock.advance(by: 24 * 3600)
        let ranOn = await eventually(seconds: 60) { ((try? await Self.otherJobsCompleted(gateway)) ?? 0) > chores }
        #expect(ranOn, "the queue ran the work that came due a day later")
        #expect(webhook.requests.count == 2 && smtp.messages().count == mailsBefore + 1 && (try? apns.records().count) == 2, "nothing delivered again")

        // (Cancelled, the pool stops at once; its jobs are all done.)
        workers.cancel()
        _ = await workers.result
    }

    /// Registers a webhook, an email and an APNs device, each a student of its own; ids by channel.
    static func registerDevices(_ gateway: TestGateway, webhook: FlakyWebhook, smtp: SMTPStandIn) async throws -> [String: Int64] {
        let devices = Captured<[String: Int64]>([:])
        let bodies = [
            "webhook": #"{"channel": "webhook", "url": "\#(webhook.url)"}"#,
            "email": #"{"channel": "email", "email": "retry@example.edu", "name": "inbox"}"#,
            "apns": #"{"channel": "apns", "token": "\#(apnsToken)", "topic": "\#(APNsStandInProcess.topic)", "environment": "sandbox"}"#,
        ]
        for (channel, body) in bodies {
            let token = try await gateway.account("retry-\(channel)", role: .student)
            try await gateway.withRouter { client async throws in
                let created = try await client.json(.post, "/v1/me/devices", body: body, token: token)
                let id = try #require((created.object["device"] as? [String: Any])?["id"] as? Int, "\(channel): \(created.status) \(created.body)")
                devices.set(devices.value.merging([channel: Int64(id)]) { _, new in new })
                guard channel == "email" else { return }
                let mailed = await eventually(seconds: 30) { !smtp.messages().isEmpty }
                #expect(mailed, "the confirmation mail came")
                let code = try #require(smtp.messages().first).confirmationCode()
                let confirmed = try await client.json(.post, "/v1/me/devices/\(id)/confirm", body: #"{"code": "\#(code)"}"#, token: token)
                #expect(confirmed.status == .ok, "\(confirmed.body)")
            }
        }
        return devices.value
    }

    /// The test's notifications by channel.
    static func notifications(_ gateway: TestGateway, _ devices: [String: Int64]) async throws -> [String: StoredNotification] {
        var found: [String: StoredNotification] = [:]
        for (channel, id) in devices {
            let stored = try await gateway.app.modules.push.push.recent(state: nil, deviceIDs: [id], limit: 50).filter { $0.uniqueKey == "retry-\(channel)" }
            if let first = stored.first { found[channel] = first }
        }
        return found
    }

    /// Jobs other than deliveries that have completed (the schedules' work).
    static func otherJobsCompleted(_ gateway: TestGateway) async throws -> Int {
        try await gateway.app.database.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind <> 'push.deliver' AND state = 'completed'") ?? 0
        }
    }

    struct DeliveryJob {
        var id: Int64
        var state: String
        var attempt: Int
        var runAt: Int64
        var attemptedAt: Int64
        var notificationID: Int64?
    }

    /// Every `push.deliver` job (the test queues no other delivery).
    static func jobs(_ gateway: TestGateway) async throws -> [DeliveryJob] {
        try await gateway.app.database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, state, attempt, run_at, attempted_at, args FROM jobs WHERE kind = 'push.deliver' ORDER BY id").map { row in
                let args = (try? JSONSerialization.jsonObject(with: Data((row["args"] as String? ?? "{}").utf8))) as? [String: Any]
                return DeliveryJob(
                    id: row["id"], state: row["state"], attempt: row["attempt"], runAt: row["run_at"], attemptedAt: row["attempted_at"] ?? 0,
                    notificationID: (args?["notificationId"] as? NSNumber)?.int64Value
                )
            }
        }
    }
}

/// A webhook receiver on 127.0.0.1 that answers `503` with `Retry-After` while `failing`, else
/// `204`, and records every request it read with the status it answered.
final class FlakyWebhook: Sendable {
    struct Request: Sendable {
        var headers: [String: String]
        var body: Data
        var status: Int
    }

    private struct State {
        var failing = false
        var requests: [Request] = []
        var open: Set<Int32> = []
        var stopped = false
    }

    let port: Int
    let retryAfter: Int
    private let listener: Int32
    private let state = Mutex(State())

    init(retryAfter: Int, lifetime: Duration = .seconds(300)) throws {
        self.retryAfter = retryAfter
        (listener, port) = try LoopbackListener.open(host: "127.0.0.1")
        LoopbackListener.start(name: "flaky-webhook-\(port)", lifetime: lifetime, acceptLoop: { [self] in acceptLoop() }, stop: { [self] in stop() })
    }

    deinit { stop() }

    var url: String { "http://127.0.0.1:\(port)/hook" }

    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    var requests: [Request] { state.withLock { $0.requests } }

    func stop() {
        let open: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.open = [] }
            return state.open
        }
        guard let open else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.open.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            Thread { [self] in serve(fd) }.start()
        }
    }

    /// Reads one request, records it with the answer it gets, answers, closes.
    private func serve(_ fd: Int32) {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var request: LoopbackReceiver.Request?
        while request == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[0..<count])
            request = LoopbackReceiver.parse(buffer)
        }
        if let request {
            let answer = state.withLock { state in
                let status = state.failing ? 503 : 204
                state.requests.append(Request(headers: request.headers, body: request.body, status: status))
                return status == 503
                    ? "HTTP/1.1 503 Service Unavailable\r\nRetry-After: \(retryAfter)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    : "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            }
            _ = answer.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, answer.utf8.count, Int32(MSG_NOSIGNAL)) }
        }
        if state.withLock({ $0.open.remove(fd) != nil }) {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }
}

/// The APNs stand-in of PushTests (Fixtures/apns_standin.py, Python h2 over TLS) as a child
/// process on 127.0.0.1, checking the provider token of Fixtures/apns_test_key.p8, with an
/// answer file that makes every request fail while it exists.
final class APNsStandInProcess: @unchecked Sendable {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"
    static let topic = "edu.campus.gateway"
    static let fixtures = URL(fileURLWithPath: APNsWiringTests.keyFile).deletingLastPathComponent()
    static let root = fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Unavailable: Error, CustomStringConvertible { let description: String }

    /// One request as the stand-in logged it.
    struct Record {
        var status: Int
        var headers: [String: String]
        var payload: String
    }

    let directory: URL
    let baseURL: URL
    let caFile: String
    private let process: TestProcess
    /// The stand-in's stdin: it exits when this closes, even if the test process dies.
    private let lifeline = Pipe()
    private var answerFile: URL { directory.appendingPathComponent("answer") }

    init() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Unavailable(description: "\(python.path) is missing: run `make deps` (scripts/install-deps.sh)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-standin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let made = try Drill.run([
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard made.status == 0 else { throw Unavailable(description: "openssl failed: \(made.output)") }
        caFile = cert
        let token = try APNsProviderToken(p8File: URL(fileURLWithPath: APNsWiringTests.keyFile), teamID: Self.teamID, keyID: Self.keyID, now: { Date() })
        let portFile = directory.appendingPathComponent("port")
        process = TestProcess()
        process.executableURL = python
        process.arguments = [
            Self.fixtures.appendingPathComponent("apns_standin.py").path,
            "--cert", cert, "--key", key, "--public-key", token.publicKeyDER.base64EncodedString(),
            "--team-id", Self.teamID, "--key-id", Self.keyID, "--topic", Self.topic,
            "--port-file", portFile.path, "--log", directory.appendingPathComponent("requests.jsonl").path,
            "--answer-file", directory.appendingPathComponent("answer").path,
        ]
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: Int?
        let deadline = Date().addingTimeInterval(30)
        while port == nil, Date() < deadline, process.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let port else {
            try? lifeline.fileHandleForWriting.close()
            process.killAndWait()
            throw Unavailable(description: "the APNs stand-in did not start")
        }
        baseURL = URL(string: "https://127.0.0.1:\(port)")!
    }

    /// `<status> <reason>` answers every request from now on; nil: answers by token again.
    func answer(_ line: String?) throws {
        if let line {
            try Data((line + "\n").utf8).write(to: answerFile, options: .atomic)
        } else if FileManager.default.fileExists(atPath: answerFile.path) {
            try FileManager.default.removeItem(at: answerFile)
        }
    }

    /// Every request logged so far, in order.
    func records() throws -> [Record] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("requests.jsonl"), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            let payload = (object["payload"]).flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }
            return Record(
                status: object["status"] as? Int ?? -1, headers: object["headers"] as? [String: String] ?? [:],
                payload: payload.map { String(decoding: $0, as: UTF8.self) } ?? ""
            )
        }
    }

    func stop() {
        try? lifeline.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
