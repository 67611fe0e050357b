public import Contracts
public import Foundation
public import GatewayCore
public import Jobs
public import Storage

/// What Push lets go of, every hour (`push.prune`):
///
/// - **QuickHAC devices** are anonymous, and each followed student costs polls: a device that
///   follows nobody a day after it was last seen, or that has not been seen (`register`, which
///   the app calls at launch) for 180 days, is deleted with its followed students, and
///   Gradebook forgets its stored accounts and their snapshots.
/// - **Notifications** delivered, discarded or failed more than 30 days ago are deleted (the
///   outbox keeps pending ones, and a month of history for "did I get it" questions).
/// - **Inbound texts' MessageSids**, kept to apply each message once, are forgotten
///   ``SMSDevices/inboundDedupeWindow`` (35 days) after they were received.
public struct PushRetention: Sendable {
    /// How long things are kept.
    public struct Periods: Sendable {
        public var unfollowedDevice: TimeInterval = 24 * 3600
        public var unseenDevice: TimeInterval = 180 * 24 * 3600
        public var finishedNotification: TimeInterval = 30 * 24 * 3600
        public var inboundText: TimeInterval = SMSDevices.inboundDedupeWindow

        public init() {}
    }

    public static let prune = JobKind<NoPayload>("push.prune")

    let transactions: any TransactionRunner
    let store: any PushRetentionStoring
    let devices: any DeviceStoring
    let accounts: any DeviceGradebookAccounts
    let clock: any GatewayClock
    let periods: Periods

    public init(
        transactions: any TransactionRunner, store: any PushRetentionStoring, devices: any DeviceStoring,
        accounts: any DeviceGradebookAccounts, clock: any GatewayClock, periods: Periods = Periods()
    ) {
        self.transactions = transactions
        self.store = store
        self.devices = devices
        self.accounts = accounts
        self.clock = clock
        self.periods = periods
    }

    /// What one run let go of.
    public struct Report: Sendable, Equatable {
        public var devices = 0
        public var notifications = 0
        public var inboundTexts = 0
    }

    /// Runs once: expired QuickHAC devices (a batch of 500 at a time until none is left), then
    /// old notifications, then old inbound texts' MessageSids.
    public func run() async throws -> Report {
        let now = clock.now()
        var report = Report()
        while true {
            let expired = try await transactions.read { [store, periods] db in
                try store.expiredQuickHACDevices(
                    unfollowedBefore: now.addingTimeInterval(-periods.unfollowedDevice),
                    unseenBefore: now.addingTimeInterval(-periods.unseenDevice), limit: 500, in: db
                )
            }
            for device in expired {
                // Its stored gradebook accounts first: a failure leaves the device for the next run.
                try await accounts.removeAll(deviceKey: device.key)
                _ = try await transactions.write { [devices] db in try devices.delete(id: device.id, in: db) }
                report.devices += 1
            }
            if expired.count < 500 { break }
        }
        report.notifications = try await transactions.write { [store, periods] db in
            try store.pruneNotifications(finishedBefore: now.addingTimeInterval(-periods.finishedNotification), in: db)
        }
        report.inboundTexts = try await transactions.write { [store, periods] db in
            try store.pruneInboundTexts(receivedBefore: now.addingTimeInterval(-periods.inboundText), in: db)
        }
        return report
    }

    /// Registers `push.prune` and its hourly schedule.
    public func register(in registry: JobRegistry) throws {
        let retention = self
        try registry.registerHousekeeping(Self.prune) { _ = try await retention.run() }
    }
}
