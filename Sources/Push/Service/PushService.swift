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
    let clock: any GatewayClock

    /// Delivers one outbox row.
    public static let deliver = JobKind<Delivery>("push.deliver", queue: PushJobs.queue)

    public struct Delivery: Codable, Sendable, Equatable {
        public var notificationId: Int64
        public init(notificationId: Int64) { self.notificationId = notificationId }
    }

    public init(
        transactions: any TransactionRunner, devices: any DeviceStoring = SQLiteDeviceStore(),
        notifications: any NotificationStoring = SQLiteNotificationStore(), jobs: any JobEnqueuing, channels: NotificationChannels,
        clock: any GatewayClock
    ) {
        self.transactions = transactions
        self.devices = devices
        self.notifications = notifications
        self.jobs = jobs
        self.channels = channels
        self.clock = clock
    }

    /// Queues `notification` for every active device of the account, once per `uniqueKey`
    /// (a replayed job adds nothing); returns how many deliveries were queued.
    @discardableResult
    public func notify(accountID: Int64, uniqueKey: String, _ notification: OutgoingNotification) async throws -> Int {
        let now = clock.now()
        return try await transactions.write { [devices, notifications, jobs] db in
            var queued = 0
            for device in try devices.devices(ofAccount: accountID, in: db) where device.active {
                guard let id = try notifications.insert(deviceID: device.id, uniqueKey: uniqueKey, notification: notification, at: now, in: db) else { continue }
                try jobs.enqueue(try NewJob(Self.deliver, Delivery(notificationId: id), maxAttempts: 8), in: db, now: now)
                queued += 1
            }
            return queued
        }
    }

    /// Queues a notification for one device (QuickHAC devices have no account).
    @discardableResult
    public func notify(deviceID: Int64, uniqueKey: String, _ notification: OutgoingNotification) async throws -> Bool {
        let now = clock.now()
        return try await transactions.write { [devices, notifications, jobs] db in
            guard let device = try devices.device(id: deviceID, in: db), device.active,
                  let id = try notifications.insert(deviceID: device.id, uniqueKey: uniqueKey, notification: notification, at: now, in: db) else { return false }
            try jobs.enqueue(try NewJob(Self.deliver, Delivery(notificationId: id), maxAttempts: 8), in: db, now: now)
            return true
        }
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
            try await record(stored, device, .failed, "the device is inactive", deviceOutcome: nil)
            return .complete
        }
        guard let channel = channels.channel(for: device.channel) else {
            try await record(stored, device, .discarded, "no \(device.channel.rawValue) channel is configured", deviceOutcome: nil)
            return .complete
        }
        let outcome = await channel.deliver(stored.notification, to: device.address)
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

    /// Outbox rows, newest first (admins: all; a student: their devices').
    public func recent(state: StoredNotification.State?, deviceIDs: [Int64]?, limit: Int) async throws -> [StoredNotification] {
        try await transactions.read { [notifications] db in try notifications.recent(state: state, deviceIDs: deviceIDs, limit: limit, in: db) }
    }

    public func counts() async throws -> [StoredNotification.State: Int] {
        try await transactions.read { [notifications] db in try notifications.counts(in: db) }
    }
}
