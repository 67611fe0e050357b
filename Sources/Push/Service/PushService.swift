public import Contracts
public import Foundation
public import GatewayCore
public import Jobs
public import Storage

/// Turns "tell this student X" into one outbox row per active device, each delivered by a
/// `push.deliver` job enqueued in the same transaction; then delivers them over each device's
/// channel and records the outcome on the notification and the device.
public final class PushService: Sendable {
    let transactions: any TransactionRunner
    let devices: any DeviceStoring
    let notifications: any NotificationStoring
    let jobs: any JobEnqueuing
    let channels: NotificationChannels
    /// Per-host and per-lane bounds on deliveries to user-supplied destinations.
    public let lanes: DeliveryLanes
    let clock: any GatewayClock
    let preferences: any PreferenceStoring
    /// The test notifications asked for, which their limits count.
    let testLog: any TestNotificationStoring

    /// Delivers one outbox row.
    public static let deliver = JobKind<Delivery>("push.deliver", queue: PushJobs.queue)

    public struct Delivery: Codable, Sendable, Equatable {
        public var notificationId: Int64
        public init(notificationId: Int64) { self.notificationId = notificationId }
    }

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring, notifications: any NotificationStoring,
        preferences: any PreferenceStoring, testLog: any TestNotificationStoring, jobs: any JobEnqueuing, channels: NotificationChannels,
        lanes: DeliveryLanes = DeliveryLanes(), clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.preferences = preferences
        self.testLog = testLog
        self.devices = devices
        self.notifications = notifications
        self.jobs = jobs
        self.channels = channels
        self.lanes = lanes
        self.clock = clock
    }

    /// Queues `notification` for every active device of the account, once per `uniqueKey`
    /// (a replayed job adds nothing), at the time the student's preferences allow; returns how
    /// many deliveries were queued (a muted category queues none).
    @discardableResult
    public func notify(accountID: Int64, uniqueKey: String, _ notification: OutgoingNotification) async throws -> Int {
        let now = clock.now()
        return try await transactions.write { [self] db in
            try notify(accountID: accountID, uniqueKey: uniqueKey, notification, now: now, in: db)
        }
    }

    /// The same in the caller's transaction, so that a use case queues its notifications
    /// atomically with the change that causes them (an alert fired and its notice queued, or
    /// neither).
    @discardableResult
    public func notify(accountID: Int64, uniqueKey: String, _ notification: OutgoingNotification, now: Date, in db: any StoreTransaction) throws -> Int {
        let preferences = try self.preferences.preferences(accountID: accountID, in: db)
        var queued = 0
        for device in try devices.devices(ofAccount: accountID, in: db) where device.active {
            if try queue(notification, to: device, uniqueKey: uniqueKey, preferences: preferences, now: now, in: db) { queued += 1 }
        }
        return queued
    }

    /// Queues a notification for one device (QuickHAC devices have no account: the defaults apply).
    @discardableResult
    public func notify(deviceID: Int64, uniqueKey: String, _ notification: OutgoingNotification) async throws -> Bool {
        let now = clock.now()
        return try await transactions.write { [self] db in
            guard let device = try devices.device(id: deviceID, in: db), device.active else { return false }
            let preferences = try device.accountID.map { try self.preferences.preferences(accountID: $0, in: db) } ?? .default
            return try queue(notification, to: device, uniqueKey: uniqueKey, preferences: preferences, now: now, in: db)
        }
    }

    /// One outbox row and its `push.deliver` job, due when the plan says.
    func queue(
        _ notification: OutgoingNotification, to device: Device, uniqueKey: String, preferences: NotificationPreferences, now: Date,
        in db: any StoreTransaction
    ) throws -> Bool {
        // Muted for this device alone (one-click unsubscribe from a mail).
        guard device.wants(notification.category) else { return false }
        guard !(try notifications.exists(deviceID: device.id, uniqueKey: uniqueKey, in: db)) else { return false }
        let scheduled = try notifications.scheduledTimes(deviceID: device.id, since: now.addingTimeInterval(-DeliveryPlan.window), in: db)
        guard case .at(let deliverAt) = DeliveryPlan.plan(
            category: notification.category, urgent: notification.urgent, now: now, preferences: preferences, scheduled: scheduled
        ) else { return false }
        guard let id = try notifications.insert(deviceID: device.id, uniqueKey: uniqueKey, notification: notification, at: now, deliverAt: deliverAt, in: db)
        else { return false }
        try jobs.enqueue(try NewJob(Self.deliver, Delivery(notificationId: id), runAt: deliverAt, maxAttempts: 8), in: db, now: now)
        return true
    }

    /// One delivery attempt of an outbox row; the job outcome follows the channel's answer.
    public func deliver(notificationID: Int64) async throws -> JobOutcome {
        let loaded = try await transactions.read { [devices, notifications] db -> (StoredNotification, Device)? in
            guard let stored = try notifications.notification(id: notificationID, in: db), stored.state == .pending,
                  let device = try devices.device(id: stored.deviceID, in: db) else { return nil }
            return (stored, device)
        }
        guard let (stored, device) = loaded else { return .complete }
        guard device.active else {
            DeliveryMetrics.record(channel: device.channel, outcome: "inactive", seconds: nil)
            try await record(stored, device, .failed, "the device is inactive", deviceOutcome: nil)
            return .complete
        }
        guard let channel = channels.channel(for: device.channel) else {
            DeliveryMetrics.record(channel: device.channel, outcome: "no-channel", seconds: nil)
            try await record(stored, device, .discarded, "no \(device.channel.rawValue) channel is configured", deviceOutcome: nil)
            return .complete
        }
        guard !device.keysUnavailable else {
            // Sealed keys this server can't open (its vault lacks their key): nothing can be
            // signed or encrypted; the operator may restore the key, so try again later.
            DeliveryMetrics.record(channel: device.channel, outcome: "keys-unavailable", seconds: nil)
            let reason = "the device's keys can't be opened on this server"
            try await record(stored, device, .pending, reason, deviceOutcome: .failure(deactivate: false))
            return .retry(after: 600, message: reason)
        }
        let started = ContinuousClock.now
        let outcome: DeliveryOutcome
        switch await lanes.run(device.address, accountID: device.accountID, { await channel.deliver(stored.notification, to: device) }) {
        case .ran(let answer):
            outcome = answer
        case .busy(let seconds):
            // Its host, its student's other deliveries or its lane hold every slot: the job
            // comes back shortly, without using an attempt, and this worker moves on.
            DeliveryMetrics.record(channel: device.channel, outcome: "deferred", seconds: nil)
            return .snooze(seconds: seconds)
        }
        let took = started.duration(to: .now)
        DeliveryMetrics.record(
            channel: device.channel, outcome: Self.metricName(outcome),
            seconds: Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        )
        switch outcome {
        case .delivered:
            try await record(stored, device, .delivered, nil, deviceOutcome: .success)
            return .complete
        case .retry(let after, let reason):
            try await record(stored, device, .pending, reason, deviceOutcome: .failure(deactivate: false))
            let seconds = after.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
            return .retry(after: seconds, message: reason)
        case .discarded(let reason):
            try await record(stored, device, .discarded, reason, deviceOutcome: .failure(deactivate: false))
            return .complete
        case .deactivate(let reason):
            try await record(stored, device, .failed, reason, deviceOutcome: .failure(deactivate: true))
            return .complete
        case .unregistered(let since, let reason):
            // A device that registered again after the upstream saw the token die stays active.
            let stale = device.registeredAt <= since
            try await record(stored, device, .failed, reason, deviceOutcome: .failure(deactivate: stale))
            return .complete
        }
    }

    enum DeviceOutcome { case success, failure(deactivate: Bool) }

    static func metricName(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .delivered: "delivered"
        case .retry: "retry"
        case .discarded: "discarded"
        case .deactivate: "deactivated"
        case .unregistered: "unregistered"
        }
    }

    private func record(_ stored: StoredNotification, _ device: Device, _ state: StoredNotification.State, _ error: String?, deviceOutcome: DeviceOutcome?) async throws {
        let now = clock.now()
        try await transactions.write { [devices, notifications] db in
            try notifications.record(id: stored.id, state: state, error: error, at: now, in: db)
            switch deviceOutcome {
            case .success?: try devices.recordSuccess(id: device.id, at: now, in: db)
            case .failure(let deactivate)?: try devices.recordFailure(id: device.id, error: error ?? "", deactivate: deactivate, at: now, in: db)
            case nil: break
            }
        }
    }

    /// Outbox rows, newest first (admins: all; a student: their devices'), those older than
    /// the notification `before` when it is given (the next page).
    public func recent(state: StoredNotification.State?, deviceIDs: [Int64]?, before: Int64? = nil, limit: Int) async throws -> [StoredNotification] {
        try await transactions.read { [notifications] db in
            try notifications.recent(state: state, deviceIDs: deviceIDs, before: before, limit: limit, in: db)
        }
    }

    public func counts() async throws -> [StoredNotification.State: Int] {
        try await transactions.read { [notifications] db in try notifications.counts(in: db) }
    }
}
