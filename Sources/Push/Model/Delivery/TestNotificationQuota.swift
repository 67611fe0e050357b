public import Foundation

/// How many test notifications (`POST /v1/me/devices/{id}/test`) a student may ask for, pure.
///
/// A test is urgent (quiet hours and the hourly budget don't hold it back), so without a limit
/// it is a way to make the gateway send as fast as a script can ask: at a webhook, a request
/// flood on someone's server in the gateway's name, and work for the delivery workers. Each
/// device gets a few tests in a short window (enough to check a setup), each student more in an
/// hour whatever the devices, so removing and adding devices doesn't reset the count.
public enum TestNotificationQuota {
    /// Tests one device may be sent in any ``deviceWindow``.
    public static let perDevice = 5
    public static let deviceWindow: TimeInterval = 10 * 60
    /// Tests one student may ask for in any ``accountWindow``, all devices together.
    public static let perAccount = 20
    public static let accountWindow: TimeInterval = 3600

    /// Whether another test may be queued now, given when the device's and the account's
    /// earlier ones were; otherwise how many seconds until one may.
    public static func allowed(deviceTests: [Date], accountTests: [Date], now: Date) -> Verdict {
        func wait(_ times: [Date], limit: Int, window: TimeInterval) -> Int? {
            let recent = times.filter { $0 > now.addingTimeInterval(-window) }.sorted()
            guard recent.count >= limit else { return nil }
            // The oldest that must leave the window for one slot to free.
            let freeing = recent[recent.count - limit].addingTimeInterval(window)
            // Clamped: stored times are rounded to the millisecond.
            return min(Int(window), max(1, Int(freeing.timeIntervalSince(now).rounded(.up))))
        }
        let waits = [
            wait(deviceTests, limit: perDevice, window: deviceWindow), wait(accountTests, limit: perAccount, window: accountWindow),
        ].compactMap { $0 }
        return waits.max().map(Verdict.retryAfter) ?? .allowed
    }

    public enum Verdict: Sendable, Equatable {
        case allowed
        case retryAfter(seconds: Int)
    }
}
