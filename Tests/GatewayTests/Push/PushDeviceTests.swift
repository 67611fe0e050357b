import Auth
import Contracts
import Foundation
import GatewayApp
import GatewayCore
import GRDB
import HTTPTypes
import HummingbirdTesting
import Push
import Registration
import Jobs
import Storage
import TestSupport
import Testing

/// Push with the whole application: one event notifies each device once, with delivery
/// recorded and counted in `/metrics`; Registration's events become notifications.
@Suite("Push devices and the outbox")
struct PushDeviceTests {
    static let apnsToken = String(repeating: "ab", count: 32)


    @Test(arguments: GatewayBackend.all) func oneEventNotifiesEachDeviceOnceAndDeliveryIsRecorded(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.make(backend)
        defer { gateway.cleanUp() }
        let ada = try await gateway.account("ada", role: .student)
        let admin = try await gateway.account("root", role: .admin)
        let accountID = try await gateway.app.accounts.transactions.read { db in try gateway.app.accounts.store.find(username: "ada", in: db)!.id! }
        try await gateway.withRouter { client async throws in
            #expect(try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log"}"#, token: ada).status == .created)
            #expect(try await client.json(.post, "/v1/me/devices", body: #"{"channel": "log"}"#, token: ada).status == .created)
        }
        let note = OutgoingNotification(id: "offer-9", category: "waitlist.offer", title: "A seat is yours", body: "Claim it", urgent: true)
        #expect(try await gateway.app.outbox.notify(accountID: accountID, uniqueKey: "offer:9", note) == 2)
        #expect(try await gateway.app.outbox.notify(accountID: accountID, uniqueKey: "offer:9", note) == 0, "a replayed event notifies nobody again")
        let deliveries = try await gateway.app.jobsRuntime.service.list(states: nil, queue: nil, kind: "push.deliver", limit: 50)
        #expect(deliveries.count == 2)
        let pending = try await gateway.app.outbox.recent(state: .pending, deviceIDs: nil, limit: 10)
        #expect(pending.count == 2)
        for stored in pending {
            #expect(try await gateway.app.outbox.deliver(notificationID: stored.id) == .complete)
            #expect(try await gateway.app.outbox.deliver(notificationID: stored.id) == .complete, "a second run finds it delivered and sends nothing")
        }
        let devices = try await gateway.app.pushDevices.devices(accountID: accountID)
        #expect(devices.allSatisfy { $0.lastSuccessAt != nil })
        try await gateway.withRouter { client async throws in
            let outbox = try await client.json(.get, "/v1/admin/push/notifications?state=delivered", token: admin)
            #expect(outbox.status == .ok)
            #expect((outbox.object["counts"] as? [String: Any])?["delivered"] as? Int == 2)
            #expect(try await client.json(.get, "/v1/admin/push/notifications", token: ada).status == .forbidden)
            #expect(try await client.json(.get, "/v1/admin/push/notifications?state=lost", token: admin).status == .unprocessableContent)
            // Attempts and outcomes are metrics too.
            let metrics = try await client.json(.get, "/metrics").body
            let lines = metrics.split(separator: "\n").filter { $0.hasPrefix("push_deliveries_total{") }
            #expect(lines.contains { $0.contains(#"channel="log""#) && $0.contains(#"outcome="delivered""#) }, "\(lines)")
            #expect(metrics.contains("push_delivery_duration_seconds"))
        }
    }

    @Test(arguments: GatewayBackend.all) func registrationEventsBecomeNotifications(_ backend: GatewayBackend) async throws {
        let gateway = try await TestGateway.registration(backend) { $0.registration.waitlistPolicy = .offer }
        defer { gateway.cleanUp() }
        let student = try await gateway.student("100000021"), leaver = try await gateway.student("100000022")
        _ = try await gateway.app.pushDevices.register(accountID: student, DeviceService.Registration(channel: "log"))
        try await gateway.openSeats(1, in: 7030)
        try await gateway.registration.enrollment.register(studentID: leaver, classID: 7030)
        _ = try await gateway.registration.enrollment.joinWaitlist(studentID: student, classID: 7030)
        // Registration offers the seat and queues the event; the same event queued again (a
        // replay) notifies nobody twice. The push queue's workers do the rest.
        try await gateway.registration.enrollment.drop(studentID: leaver, classID: 7030)
        let queued = try #require(try await gateway.jobs(kind: PushJobs.seatOffered.name).first)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let offer = try decoder.decode(PushJobs.SeatOffered.self, from: Data(queued.args.utf8))
        try await gateway.app.jobsRuntime.service.enqueue(try NewJob(PushJobs.seatOffered, offer))
        let finished = try await gateway.app.runQueuedJobs(queue: PushJobs.queue)
        #expect(finished.count == 4, "two event jobs, one delivery, and the class's close event (nobody watches it)")
        let rows = try await gateway.app.outbox.recent(state: nil, deviceIDs: nil, limit: 10)
        #expect(rows.map(\.notification.category) == ["waitlist.offer"])
        #expect(rows.map(\.state) == [.delivered])
        #expect(rows.first?.notification.urgent == true)
        #expect(rows.first?.notification.expiresAt == offer.expiresAt, "the offer's expiry travels with it (APNs expiration, Web Push TTL)")
    }
}

@Suite("Web Push key")
struct VAPIDKeyRouteTests {
    @Test(arguments: GatewayBackend.all) func browsersGetTheKeyOnlyWhereWebPushIsConfigured(_ backend: GatewayBackend) async throws {
        let (app, directory) = try DemoGateway.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.makeApplication().test(.router) { client async throws in
            let reply = try await client.json(.get, "/v1/push/vapid-public-key")
            #expect(reply.status == .ok)
            let key = try #require(reply.object["publicKey"] as? String)
            #expect(key.count == 87, "a 65-byte uncompressed point in unpadded base64url")
        }
        let plain = try await TestGateway.make(backend) { $0.environment = [:] }
        defer { plain.cleanUp() }
        try await plain.withRouter { client async throws in
            #expect(try await client.json(.get, "/v1/push/vapid-public-key").status == .notFound)
        }
    }
}
