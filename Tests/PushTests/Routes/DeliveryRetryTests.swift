import Auth
import AuthTestSupport
import Contracts
import Foundation
import GRDB
import GatewayCore
import HTTPTypes
import Jobs
import Push
import Storage
import TestSupport
import Testing
import SQLiteStorage

/// A failed delivery is retried to the end, through the real job queue and the real channels,
/// on loopback: a webhook answers 503 with `Retry-After`, the SMTP server answers 451, APNs
/// answers 503 ServiceUnavailable. Each delivery fails once and waits (its job retryable, due
/// after the backoff the queue chose: the webhook's own Retry-After, the others' exponential
/// backoff); then the peers are well again, the test clock moves to the time the retries are
/// due, and each notification arrives exactly once: the webhook with the same `webhook-id` as
/// the failed attempt, the mail once, APNs once with the same notification. (The upstream fault
/// drill does this at scale, with every kind of fault; this is its `make test` size.) The Push
/// module alone (``PushGateway``), with its schedules on the job pool.
@Suite("Failed deliveries are retried once due", .serialized)
struct DeliveryRetryTests {
    static let smtpPassword = "smtp-retry-secret"
    static let apnsToken = String(repeating: "ab", count: 32)
    /// The webhook's Retry-After while it fails, in seconds.
    static let webhookRetryAfter = 120

    @Test func aFailedWebhookMailAndAPNsDeliveryEachArriveOnceAfterTheBackoff() async throws {
        let webhook = try LoopbackReceiver(behaviour: .answer, lifetime: .seconds(300))
        defer { webhook.stop() }
        let smtp = try await SMTPStandIn.started(username: "gateway", password: Self.smtpPassword)
        defer { smtp.stop() }
        let apns = try await APNsStandIn.started(publicKeyDER: try APNsFixtures.providerToken().publicKeyDER)
        defer { apns.stop() }
        let gateway = try await PushGateway.make(delivery: .init(allowInsecureEndpoints: true, smtp: smtp, smtpPassword: Self.smtpPassword, apns: apns))
        defer { gateway.cleanUp() }
        let pool = gateway.jobs.pool
        let workers = Task { try await pool.run() }
        defer { workers.cancel() }

        // One device per channel, each its own student's; the email address confirmed with the
        // code its confirmation mail brought (delivered while the SMTP server is well).
        let devices = try await Self.registerDevices(gateway, webhook: webhook, smtp: smtp)
        let mailsBefore = smtp.messages().count

        // The peers fail; one notification to each device.
        webhook.unavailableRetryAfter = Self.webhookRetryAfter
        try smtp.reply(with: "451 4.3.0 Try again later")
        try apns.answer("503 ServiceUnavailable")
        for (channel, id) in devices {
            // A UUID, as a real event's.
            let note = OutgoingNotification(id: UUID().uuidString.lowercased(), category: "seat.open", title: "Seat open", body: "CS 101 has a seat (\(channel))", urgent: true)
            #expect(try await gateway.push.notify(deviceID: id, uniqueKey: "retry-\(channel)", note), "\(channel) queued")
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
        webhook.unavailableRetryAfter = nil
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
        let payloads = pushes.map { record in
            record.payload.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        #expect(payloads.count == 2 && !payloads[0].isEmpty && payloads[0] == payloads[1], "the retry sends the same notification: \(payloads)")
        #expect(payloads.last?.contains("CS 101 has a seat (apns)") == true)

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
    static func registerDevices(_ gateway: PushGateway, webhook: LoopbackReceiver, smtp: SMTPStandIn) async throws -> [String: Int64] {
        let devices = Captured<[String: Int64]>([:])
        let bodies = [
            "webhook": #"{"channel": "webhook", "url": "\#(webhook.url())"}"#,
            "email": #"{"channel": "email", "email": "retry@example.edu", "name": "inbox"}"#,
            "apns": #"{"channel": "apns", "token": "\#(apnsToken)", "topic": "\#(APNsStandIn.topic)", "environment": "sandbox"}"#,
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
    static func notifications(_ gateway: PushGateway, _ devices: [String: Int64]) async throws -> [String: StoredNotification] {
        var found: [String: StoredNotification] = [:]
        for (channel, id) in devices {
            let stored = try await gateway.push.recent(state: nil, deviceIDs: [id], limit: 50).filter { $0.uniqueKey == "retry-\(channel)" }
            if let first = stored.first { found[channel] = first }
        }
        return found
    }

    /// Jobs other than deliveries that have completed (the schedules' work).
    static func otherJobsCompleted(_ gateway: PushGateway) async throws -> Int {
        try await gateway.integer("SELECT COUNT(*) FROM jobs WHERE kind <> 'push.deliver' AND state = 'completed'")
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
    static func jobs(_ gateway: PushGateway) async throws -> [DeliveryJob] {
        try await gateway.database.pool.read { db in
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
