import Contracts
import Foundation
import HTTPClient
@testable import Push
import Testing

/// The pure rules behind the controls on user-supplied endpoints: numeric host forms, the
/// test-notification quota, per-host and per-lane delivery slots, sealed device keys and
/// address classes in delivery errors.
@Suite("User-supplied endpoint rules")
struct UserEndpointRulesTests {
    @Test(arguments: [
        "2130706433", "0x7f000001", "0X7F000001", "0x7f.1", "0177.0.0.1", "127.1", "127.0.0.1.", "0x7f.0.0.1", "127.0.0.01",
        "1.2.3.4.5", "256.1.1.1", "example.123", "hooks.example.0x10", "0x", "127.0.1", "010.0.0.1",
    ])
    func numericFormsOtherThanDottedQuadsAreRefused(host: String) {
        #expect(NumericHost.isRefused(host), "\(host)")
        #expect(throws: DeviceProblem(field: "url", reason: NumericHost.reason)) {
            _ = try DeviceRules.outboundURL("https://\(host)/hook", field: "url", allowInsecure: true)
        }
        let refusal = PushEndpointPolicy.strict.refusal(for: URL(string: "https://\(host)/hook")!)
        #expect(refusal == "the host is a numeric form other than a dotted quad or bracketed IPv6", "\(host)")
    }

    @Test(arguments: ["hooks.example.org", "203.0.113.5", "0.0.0.0", "255.255.255.255", "[2001:db8::1]", "2001:db8::1", "0x7f.example.org", "123.example.org", "example.org."])
    func namesDottedQuadsAndIPv6AreNotNumericForms(host: String) {
        #expect(!NumericHost.isRefused(host), "\(host)")
    }

    @Test func publicHostsPassTheRegistrationCheck() throws {
        for url in ["https://hooks.example.org/campus", "https://203.0.113.5/hook", "https://hooks.example.org./x"] {
            #expect(try DeviceRules.outboundURL(url, field: "url").absoluteString == url)
        }
    }

    @Test func emailDomainsEndInAName() throws {
        for refused in ["ada@127.0.0.1", "ada@10.0.0.8", "ada@example.123", "ada@2130706433.1"] {
            #expect(throws: MailAddress.Invalid.self, "\(refused)") { _ = try MailAddress(validating: refused) }
        }
        for accepted in ["ada@example.edu", "ada@123.example.edu", "ada@mail-2.example.org"] {
            #expect(try MailAddress(validating: accepted).value == accepted)
        }
    }

    @Test func mailTransportFailuresNameTheirKindNotTheServer() async {
        struct Unreachable: MailTransport {
            func send(_ message: MailMessage) async throws -> SMTPReceipt {
                throw MailTransportError.transport(.connectionFailed(message: "Failed to connect to 10.9.8.7 port 587 after 3 ms"))
            }
        }
        let message = MailMessage(
            from: try! MailAddress(validating: "gateway@example.edu"), to: try! MailAddress(validating: "ada@example.edu"), subject: "Hi", date: Date(),
            messageID: "m1@example.edu", text: "Hello"
        )
        let outcome = await TransportEmailSender(transport: Unreachable()).send(message, purpose: .notification(id: "n1", category: "test"))
        #expect(outcome == .retry(after: nil, reason: "the mail server could not be reached: connection failed"))
    }

    @Test func testQuotaCountsPerDeviceAndPerAccount() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let minuteAgo = now.addingTimeInterval(-60)
        #expect(TestNotificationQuota.allowed(deviceTests: [], accountTests: [], now: now) == .allowed)
        let five = Array(repeating: minuteAgo, count: 5)
        #expect(TestNotificationQuota.allowed(deviceTests: five, accountTests: five, now: now) == .retryAfter(seconds: 540))
        let old = Array(repeating: now.addingTimeInterval(-601), count: 5)
        #expect(TestNotificationQuota.allowed(deviceTests: old, accountTests: old, now: now) == .allowed)
        let twenty = Array(repeating: now.addingTimeInterval(-1800), count: 20)
        #expect(TestNotificationQuota.allowed(deviceTests: [], accountTests: twenty, now: now) == .retryAfter(seconds: 1800))
    }

    @Test func lanesBoundDeliveriesPerHostPerStudentAndPerLane() async {
        var configuration = DeliveryLanes.Configuration()
        configuration.webhook = .init(perHost: 2, perAccount: 3, total: 4)
        let lanes = DeliveryLanes(configuration: configuration)
        let secret = Data(repeating: 7, count: 32)
        func hook(_ host: String) -> DeviceAddress { .webhook(url: URL(string: "https://\(host)/x")!, secret: secret) }
        let gate = Gate()
        func hold(_ host: String, account: Int64) -> Task<DeliveryLanes.Admission, Never> {
            Task { await lanes.run(hook(host), accountID: account) { await gate.wait(); return .delivered(status: 200) } }
        }
        // Two deliveries to one host hold its slots until released.
        var held = [hold("slow.example.org", account: 1), hold("slow.example.org", account: 2)]
        while lanes.webhooksInFlight(host: "slow.example.org") < 2 { await Task.yield() }
        #expect(await lanes.run(hook("SLOW.example.org."), accountID: 3) { .delivered(status: 200) }.isBusy(atLeast: 4), "a third to the same host gets no slot (and waits longer)")
        #expect(await lanes.run(hook("other.example.org"), accountID: 3) { .delivered(status: 200) } == .ran(.delivered(status: 200)), "another host has its own")
        // A student's hosts share the student's slots (3): student 1 holds one, two more fill them.
        held += [hold("a.example.org", account: 1), hold("b.example.org", account: 1)]
        while lanes.webhooksInFlight(host: "a.example.org") < 1 || lanes.webhooksInFlight(host: "b.example.org") < 1 { await Task.yield() }
        #expect(await lanes.run(hook("c.example.org"), accountID: 1) { .delivered(status: 200) }.isBusy(atLeast: 4), "student 1 has no slot left")
        // The lane's total (4) is shared by everyone: full now.
        #expect(await lanes.run(hook("fresh.example.org"), accountID: 9) { .delivered(status: 200) }.isBusy(atMost: 3), "the lane is full (a short wait)")
        // Web Push, APNs and email are not held up by webhooks.
        let push = DeviceAddress.webPush(endpoint: URL(string: "https://slow.example.org/sub")!, p256dh: "k", auth: "a")
        #expect(await lanes.run(push, accountID: 1) { .delivered(status: 201) } == .ran(.delivered(status: 201)))
        #expect(await lanes.run(.log, accountID: 1) { .delivered(status: 200) } == .ran(.delivered(status: 200)))
        await gate.open()
        for task in held { #expect(await task.value == .ran(.delivered(status: 200))) }
        #expect(lanes.webhooksInFlight(host: "slow.example.org") == 0)
        #expect(await lanes.run(hook("c.example.org"), accountID: 1) { .delivered(status: 200) } == .ran(.delivered(status: 200)), "slots are given back")
    }

    @Test func lanesLeaveWorkersForOtherDeliveries() {
        let defaults = DeliveryLanes.Configuration()
        #expect(defaults.fitting(workers: 10) == defaults, "3 + 5 leave 2 of the default 10 push workers")
        for workers in [1, 2, 4, 6] {
            let fitted = defaults.fitting(workers: workers)
            #expect(fitted.webhook.total >= 1 && fitted.webPush.total >= 1)
            #expect(fitted.webhook.total + fitted.webPush.total <= max(2, workers - max(1, workers / 5)), "\(workers): \(fitted)")
        }
    }

    @Test func deviceKeysNeverPrintTheirValues() throws {
        let keys = DeviceKeys(webhookSecret: Data(repeating: 0xAB, count: 32), p256dh: "public-key-text", auth: "auth-secret-text")
        for text in [keys.description, String(reflecting: keys), "\(keys)"] {
            #expect(!text.contains("auth-secret-text") && !text.contains("public-key-text") && !text.contains("q6ur"), "\(text)")
        }
        #expect(try DeviceKeys(plaintext: try keys.plaintext()) == keys)
        #expect(DeviceKeys(of: .log) == nil)
        #expect(DeviceKeys.context(deviceID: 12, accountID: nil).description == "push_devices/12/0")
    }

    @Test func refusedDestinationsNameTheClassNotTheAddress() {
        let loopback = HTTPDeliveryMapping.outcome(for: HTTPClientError.destinationNotAllowed(address: "127.0.0.1", reason: "loopback"))
        #expect(loopback == .discarded(reason: "the destination resolves to a loopback address, which is not allowed"))
        let unspecified = HTTPDeliveryMapping.outcome(for: HTTPClientError.destinationNotAllowed(address: "0.0.0.0", reason: "unspecified"))
        #expect(unspecified == .discarded(reason: "the destination resolves to an unspecified address, which is not allowed"))
        let metadata = HTTPDeliveryMapping.outcome(for: HTTPClientError.destinationNotAllowed(address: "fd00:ec2::254", reason: "cloud metadata"))
        guard case .discarded(let reason) = metadata else { Issue.record("\(metadata)"); return }
        #expect(!reason.contains("fd00") && reason.contains("a cloud metadata address"))
    }
}

extension DeliveryLanes.Admission {
    func isBusy(atLeast low: TimeInterval = 0, atMost high: TimeInterval = .infinity) -> Bool {
        guard case .busy(let seconds) = self else { return false }
        return seconds >= low && seconds <= high
    }
}

/// Holds tasks until opened.
actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}
