import Foundation
import GatewayCore
import Storage

extension PushService {
    /// Queues a test notification (`POST /v1/me/devices/{id}/test`) for one of the student's
    /// devices, to go at once, within ``TestNotificationQuota``: the check, the outbox row and
    /// the log entry are one transaction, so concurrent requests can't all pass the limit.
    /// Returns false, counting nothing, for a device that takes nothing (inactive, muted).
    /// - Throws: ``PushError/deviceNotFound`` for another student's device,
    ///   ``PushError/testNotificationLimit(retryAfterSeconds:)`` past a limit (nothing queued).
    public func sendTest(deviceID: Int64, accountID: Int64) async throws -> Bool {
        let now = clock.now()
        let id = UUID().uuidString.lowercased()
        let notification = OutgoingNotification(
            id: id, category: "test", title: "Campus Gateway", body: "Notifications reach this device.",
            // The student is checking their device now: quiet hours and the hourly budget don't
            // hold it back (the quota does).
            urgent: true
        )
        return try await transactions.write { [self] db in
            guard let device = try devices.device(id: deviceID, in: db), device.accountID == accountID else { throw PushError.deviceNotFound }
            guard device.active, device.wants(notification.category) else { return false }
            let horizon = max(TestNotificationQuota.deviceWindow, TestNotificationQuota.accountWindow)
            let recent = try testLog.tests(accountID: accountID, since: now.addingTimeInterval(-horizon), in: db)
            let verdict = TestNotificationQuota.allowed(
                deviceTests: recent.filter { $0.deviceID == deviceID }.map(\.at), accountTests: recent.map(\.at), now: now
            )
            if case .retryAfter(let seconds) = verdict { throw PushError.testNotificationLimit(retryAfterSeconds: seconds) }
            let preferences = try self.preferences.preferences(accountID: accountID, in: db)
            guard try queue(notification, to: device, uniqueKey: "test:\(id)", preferences: preferences, now: now, in: db) else { return false }
            try testLog.record(accountID: accountID, deviceID: deviceID, at: now, in: db)
            return true
        }
    }
}
