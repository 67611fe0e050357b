import Auth
import AuthTestSupport
import Contracts
import Foundation
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
import Jobs
import Push
@testable import SQLiteStores
import Storage
import Testing
import TestSupport
import SQLiteStorage

/// The security review's findings on user-supplied endpoints (webhook URLs, Web Push
/// endpoints), each shown through the Push module's routes (``PushGateway``) or the real webhook channel: test
/// notifications are limited, a slow webhook holds up no other student, device keys are
/// sealed, and students see address classes, never addresses or numeric host tricks.
@Suite("User-supplied endpoints", .serialized)
struct UserEndpointTests {
    static let p256dh = PushTestValues.p256dh
    static let auth = PushTestValues.auth

    static func deviceID(_ reply: HTTPReply) throws -> Int { try PushTestValues.deviceID(reply) }

    // MARK: 1. Test notifications are limited

    /// Before: 200 tests to one device queued 200 urgent deliveries. Now 5 per device in 10
    /// minutes and 20 per student in an hour; past either, 429 with `Retry-After` and nothing
    /// queued; removing and adding a device doesn't reset the count.
    @Test func testNotificationsAreLimitedPerDeviceAndPerStudent() async throws {
        let gateway = try await PushGateway.make()
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let bob = try await gateway.account("bob", role: .student)
        let queuedTests = { @Sendable () async throws -> Int in
            try await gateway.database.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_notifications WHERE category = 'test'") ?? 0
            }
        }
        try await gateway.withRouter { client async throws in
            var devices: [Int] = []
            for n in 0..<5 {
                devices.append(try Self.deviceID(try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log", "name": "d\#(n)"}"#, token: ada)))
            }
            for _ in 0..<TestNotificationQuota.perDevice {
                let reply = try await client.json(.post, "/v1/me/devices/\(devices[0])/test", token: ada)
                #expect(reply.status == .accepted)
                #expect(reply.object["queued"] as? Bool == true)
            }
            let limited = try await client.json(.post, "/v1/me/devices/\(devices[0])/test", token: ada)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.contentType == "application/problem+json")
            #expect(limited.object["type"] as? String == "/problems/test-notification-limit")
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap { Int($0) })
            #expect(retryAfter > 0 && retryAfter <= 600)
            #expect(limited.object["retryAfterSeconds"] as? Int == retryAfter)
            #expect(try await queuedTests() == 5, "the refused test queued nothing")

            // Another student is not held back by ada's tests.
            let bobs = try Self.deviceID(try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log"}"#, token: bob))
            #expect(try await client.json(.post, "/v1/me/devices/\(bobs)/test", token: bob).status == .accepted)

            // Per student: 20 in an hour, whatever the devices.
            for device in devices[1...3] {
                for _ in 0..<5 { #expect(try await client.json(.post, "/v1/me/devices/\(device)/test", token: ada).status == .accepted) }
            }
            #expect(try await client.json(.post, "/v1/me/devices/\(devices[4])/test", token: ada).status == .tooManyRequests)
            #expect(try await client.json(.delete, "/v1/me/devices/\(devices[4])", token: ada).status == .noContent)
            let fresh = try Self.deviceID(try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log"}"#, token: ada))
            let again = try await client.json(.post, "/v1/me/devices/\(fresh)/test", token: ada)
            #expect(again.status == .tooManyRequests, "a new device doesn't reset the student's count")
            #expect(try await queuedTests() == 21)

            // Ten minutes on, the device limit has passed but the hourly one holds; an hour on, both.
            gateway.clock.advance(by: 601)
            #expect(try await client.json(.post, "/v1/me/devices/\(fresh)/test", token: ada).status == .tooManyRequests)
        }
        gateway.clock.advance(by: 3600)
        let renewed = try await gateway.auth.issueToken(username: "ada", password: "correct horse battery", lifetimeMinutes: nil, clientAddress: nil).token
        try await gateway.withRouter { client async throws in
            let devices = try await client.json(.get, "/v1/me/devices", token: renewed)
            let first = try #require((devices.object["items"] as? [[String: Any]])?.first?["id"] as? Int)
            #expect(try await client.json(.post, "/v1/me/devices/\(first)/test", token: renewed).status == .accepted)
        }
    }

    // MARK: 2. One slow webhook stalls no one else

    /// Before: 40 deliveries to a webhook that never answers took all 8 shared transfer threads
    /// for 15 s each, and another student's notification waited 74.6 s. Now at most 2
    /// deliveries to one host, and 2 to one student's devices, are in flight (the rest are
    /// snoozed, freeing their workers), and webhooks have transfer threads of their own: with
    /// 40 deliveries queued to two hanging hosts of one student, another student's webhook on
    /// another host gets its notification within seconds, and the hanging hosts never see more
    /// than 2 connections between them.
    @Test func aWebhookThatNeverAnswersHoldsUpNoOtherStudent() async throws {
        let hanging = try LoopbackReceiver(host: "127.0.0.1", behaviour: .silent, lifetime: .seconds(45))
        defer { hanging.stop() }
        let alsoHanging = try LoopbackReceiver(host: "127.0.0.3", behaviour: .silent, lifetime: .seconds(45))
        defer { alsoHanging.stop() }
        let receiver = try LoopbackReceiver(host: "127.0.0.2", behaviour: .answer, lifetime: .seconds(45))
        defer { receiver.stop() }
        let gateway = try await PushGateway.make(delivery: .init(allowInsecureEndpoints: true))
        defer { gateway.cleanUp() }
        let mallory = try await gateway.account("mallory", role: .student)
        let ada = try await gateway.account("ada", role: .student)
        let malloryDevices = Captured<[Int]>([])
        try await gateway.withRouter { client async throws in
            var ids: [Int] = []
            for server in [hanging, alsoHanging] {
                let slow = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(server.url())"}"#, token: mallory)
                ids.append(try Self.deviceID(slow))
            }
            malloryDevices.set(ids)
            let fine = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(receiver.url())"}"#, token: ada)
            #expect(fine.status == .created)
        }
        // Queued directly (as many events would), so the test limit doesn't hide the problem.
        for n in 0..<40 {
            let note = OutgoingNotification(id: "flood-\(n)", category: "seat.open", title: "Seat open", body: "Hurry", urgent: true)
            let device = Int64(malloryDevices.value[n % 2])
            #expect(try await gateway.push.notify(deviceID: device, uniqueKey: "flood-\(n)", note))
        }
        let pool = gateway.jobs.pool
        let workers = Task { try await pool.run() }
        defer { workers.cancel() }
        let flooded = await eventually(seconds: 10) { hanging.acceptedConnections + alsoHanging.acceptedConnections >= 2 }
        #expect(flooded, "the flood reached the hanging webhooks")
        // Let the workers go through the whole flood once: every delivery has been tried, two
        // hang on their hosts and the rest are snoozed (due again only later on the manual clock).
        let database = gateway.database
        let wentThrough = await eventually(seconds: 20) {
            let (tried, running) = (try? await database.pool.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind = 'push.deliver' AND attempted_at IS NOT NULL") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE kind = 'push.deliver' AND state = 'running'") ?? 0
                )
            }) ?? (0, 0)
            return tried == 40 && running <= 2
        }
        #expect(wentThrough, "the workers tried every delivery of the flood")

        // The deliveries the hanging hosts hold: their jobs stay running until the webhook
        // channel gives up on the silent peer (its timeout), and nothing starts them again
        // before the manual clock moves.
        let held = try await database.pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM jobs WHERE kind = 'push.deliver' AND state = 'running'")
        }
        #expect(held.count == 2, "two deliveries hang on their hosts: \(held)")
        let heldList = held.map(String.init).joined(separator: ",")
        @Sendable func stillHanging() async -> Int {
            (try? await database.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM jobs WHERE id IN (\(heldList)) AND state = 'running'") ?? 0
            }) ?? 0
        }

        let adaID = try await gateway.accountID("ada")
        let grade = OutgoingNotification(id: "grade-1", category: "grade.new", title: "New grade", body: "MATH 141: A", urgent: true)
        #expect(try await gateway.push.notify(accountID: adaID, uniqueKey: "grade-1", grade) == 1)
        // Whichever comes first: ada's notification arrives, or a hanging delivery gives up.
        // Ada's must come first (before, it queued behind the flood until the hanging ones
        // timed out). Arrival is looked at before the hanging jobs, so "arrived and both still
        // hanging" means both still hung when it arrived. (The bound only stops a broken test:
        // the hanging hosts close everything at 45 s.)
        let seen = Captured<(arrived: Bool, hanging: Int)>((false, held.count))
        let settled = await eventually(seconds: 90) {
            let arrived = !receiver.requests.isEmpty
            let hanging = await stillHanging()
            seen.set((arrived, hanging))
            return arrived || hanging < held.count
        }
        #expect(settled, "neither ada's notification nor the end of a hanging delivery came")
        #expect(seen.value.arrived, "ada's notification never arrived while the hanging webhooks were flooded")
        #expect(seen.value.hanging == held.count, "ada's notification arrived only after a hanging delivery gave up (\(seen.value.hanging) of \(held.count) still hung)")
        #expect(receiver.requests.count == 1)
        #expect(receiver.requests.first.map { String(decoding: $0.body, as: UTF8.self).contains("MATH 141: A") } == true)
        let connections = hanging.acceptedConnections + alsoHanging.acceptedConnections
        #expect(connections <= 2, "at most 2 deliveries to one student's webhooks at once; saw \(connections)")
        #expect(gateway.push.lanes.webhooksInFlight(host: "127.0.0.1") <= 2)

        pool.shutdown(timeout: 0)
        hanging.stop()
        alsoHanging.stop()
        _ = try? await workers.value
    }

    // MARK: 4. Address classes, never addresses; no numeric host forms

    /// A webhook whose host name resolves to a loopback address is refused at connect time;
    /// what the student reads (the device's and the notification's `lastError`) names the
    /// class of address, never the address.
    @Test func studentsSeeTheClassOfARefusedAddressNotTheAddress() async throws {
        let gateway = try await PushGateway.make()
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let adaID = try await gateway.accountID("ada")
        // `localhost` is refused at registration; a row holding it stands for any name that
        // resolves inside the network (DNS the student controls).
        let store = SQLiteDeviceStore(sealer: TestVaultSealing())
        let now = gateway.clock.now()
        let device = try await gateway.database.write { db in
            try store.insert(NewDevice(
                accountID: adaID, name: "probe", address: .webhook(url: URL(string: "https://localhost:9/hook")!, secret: WebhookSecret.generate().bytes)
            ), at: now, in: db)
        }
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/me/devices/\(device.id)/test", token: ada).status == .accepted)
            _ = try await gateway.jobs.pool.drain(queue: PushJobs.queue)
            let shown = try await client.json(.get, "/v1/me/devices/\(device.id)", token: ada)
            let lastError = try #require(shown.object["lastError"] as? String)
            #expect(lastError == "the destination resolves to a loopback address, which is not allowed")
            let history = try await client.json(.get, "/v1/me/devices/\(device.id)/notifications", token: ada)
            for text in [shown.body, history.body] {
                #expect(!text.contains("127.0.0.1") && !text.contains("::1"), "\(text)")
            }
            #expect(history.body.contains("a loopback address"))
        }
    }

    /// Numeric host forms other than dotted quads and bracketed IPv6 are 422 naming the field,
    /// for webhooks and Web Push, even where insecure endpoints are allowed; host names and
    /// public dotted quads still pass.
    @Test(arguments: [false, true])
    func numericHostFormsAreRefusedAtRegistration(allowInsecure: Bool) async throws {
        let gateway = try await PushGateway.make(delivery: .init(allowInsecureEndpoints: allowInsecure))
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let forms = [
            "https://2130706433/hook", "https://0x7f000001/hook", "https://0x7f.1/hook", "https://0177.0.0.1/hook", "https://127.1/hook",
            "https://127.0.0.1./hook", "https://0x7F.0.0.1/hook", "https://1.2.3.4.5/hook", "https://hooks.example.123/hook", "https://3232235521:443/x",
        ]
        try await gateway.withRouter { client async throws in
            for url in forms {
                let webhook = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(url)"}"#, token: ada)
                #expect(webhook.status == .unprocessableContent, "\(url): \(webhook.body)")
                #expect(webhook.object["invalidFields"] as? [String] == ["url"], "\(url)")
                #expect((webhook.object["detail"] as? String)?.contains("dotted-quad") == true, "\(url)")
                let webPush = try await client.json(
                    .post, "/v1/me/devices",
                    body: #"{"channel": "webpush", "endpoint": "\#(url)", "p256dh": "\#(Self.p256dh)", "auth": "\#(Self.auth)"}"#, token: ada
                )
                #expect(webPush.status == .unprocessableContent, "\(url): \(webPush.body)")
                #expect(webPush.object["invalidFields"] as? [String] == ["endpoint"], "\(url)")
            }
            let mail = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "email", "email": "ada@127.0.0.1"}"#, token: ada)
            #expect(mail.status == .unprocessableContent)
            #expect(mail.object["invalidFields"] as? [String] == ["email"])
            for url in ["https://hooks.example.org/campus", "https://203.0.113.5/hook", "https://[2001:db8::1]/hook", "https://0x7f.example.org/hook"] {
                let reply = try await client.json(.post, "/v1/me/devices", body: #"{"channel": "webhook", "url": "\#(url)"}"#, token: ada)
                #expect(reply.status == .created, "\(url): \(reply.body)")
            }
        }
    }

}
