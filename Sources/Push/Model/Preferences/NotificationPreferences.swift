public import Foundation

/// What a student wants to hear and when: categories they turned off, quiet hours in their own
/// time zone, and how many notifications an hour each of their devices may get.
///
/// Alerts that can't wait (urgent: a seat opened, a waitlist offer, a cancelled class) ignore
/// quiet hours and the hourly budget; the rest are deferred, never dropped.
public struct NotificationPreferences: Sendable, Equatable {
    /// The categories a student may turn off. Others (`class.cancelled`, `waitlist.enrolled`,
    /// `test`) are about their registration itself and always go out.
    public static let optionalCategories = ["grade.new", "grade.changed", "seat.open", "seat.closed", "waitlist.offer"]
    /// Defaults: everything on, no quiet hours, 30 an hour.
    public static let defaultMaxPerHour = 30
    public static let maxPerHourRange = 1...600

    /// Categories turned off.
    public var muted: Set<String>
    public var quietHours: QuietHours?
    /// Non-urgent notifications a device gets in any hour; more wait for the next free slot.
    public var maxPerHour: Int

    public init(muted: Set<String> = [], quietHours: QuietHours? = nil, maxPerHour: Int = Self.defaultMaxPerHour) {
        self.muted = muted
        self.quietHours = quietHours
        self.maxPerHour = maxPerHour
    }

    public static let `default` = NotificationPreferences()

    /// Whether the student hears of `category`: only the optional ones can be turned off.
    public func wants(_ category: String) -> Bool {
        !(muted.contains(category) && Self.optionalCategories.contains(category))
    }
}

/// A daily window, in the student's time zone, when non-urgent notifications wait. `start`
/// after `end` spans midnight (22:00 to 07:00); equal times mean no quiet hours.
public struct QuietHours: Sendable, Equatable {
    /// Minutes after local midnight, 0..<1440.
    public var start: Int
    public var end: Int
    public var timeZone: TimeZone

    public init(start: Int, end: Int, timeZone: TimeZone) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
    }

    /// Parses `HH:MM` (24-hour) into minutes after midnight.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        return hour * 60 + minute
    }

    /// `HH:MM` for minutes after midnight.
    public static func text(_ minutes: Int) -> String {
        let hour = minutes / 60, minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// When the quiet window that contains `date` ends, or nil when `date` is outside it.
    /// Local wall-clock times are resolved in the zone, so a window across a DST change ends at
    /// the local `end` time of that night.
    public func end(containing date: Date) -> Date? {
        guard start != end else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = start < end ? (now >= start && now < end) : (now >= start || now < end)
        guard inside else { return nil }
        // The end is today when it is later than now on the clock, else tomorrow.
        let day = calendar.startOfDay(for: date)
        let endDay = now < end ? day : calendar.date(byAdding: .day, value: 1, to: day) ?? day
        let components = DateComponents(hour: end / 60, minute: end % 60)
        return calendar.nextDate(after: endDay.addingTimeInterval(-1), matching: components, matchingPolicy: .nextTime) ?? date
    }
}
