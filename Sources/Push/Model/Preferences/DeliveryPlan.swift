public import Foundation

/// When a notification may go to a device, given the student's preferences and what the
/// device was already sent: pure, so the rules are tested without a clock or a database.
public enum DeliveryPlan: Sendable, Equatable {
    /// The student turned this category off: nothing is queued.
    case muted
    /// Deliver at this time (now, the end of quiet hours, or the next free slot of the hour).
    case at(Date)

    /// The hourly budget counts every notification a device was scheduled to get in the
    /// sliding hour before the delivery time (`scheduled`: their delivery times, any order).
    public static let window: TimeInterval = 3600

    public static func plan(
        category: String, urgent: Bool, now: Date, preferences: NotificationPreferences, scheduled: [Date]
    ) -> DeliveryPlan {
        guard preferences.wants(category) else { return .muted }
        if urgent { return .at(now) }
        var time = now
        let sorted = scheduled.sorted()
        // Each step moves later (quiet hours end, or a slot frees), so this ends; the bound
        // only guards against a pathological list.
        for _ in 0..<(sorted.count + 8) {
            if let quiet = preferences.quietHours, let end = quiet.end(containing: time) {
                time = end
                continue
            }
            let inWindow = sorted.filter { $0 > time.addingTimeInterval(-window) && $0 <= time }
            if inWindow.count < preferences.maxPerHour { return .at(time) }
            // Wait until enough of them leave the window to free one slot.
            time = inWindow[inWindow.count - preferences.maxPerHour].addingTimeInterval(window)
        }
        return .at(time)
    }
}
