/// One weekly meeting of a class: which days, from when to when, and where.
///
/// A meeting without days or without times is TBA (to be arranged, or online): it has no
/// place on a weekly calendar and never conflicts with anything.
public struct Meeting: Sendable, Hashable, Codable {
    public var days: Weekdays
    public var start: TimeOfDay?
    public var end: TimeOfDay?
    public var building: String
    public var room: String
    /// Lecture, Laboratory, Discussion, ... (empty when the class's own type applies).
    public var kind: String

    public init(
        days: Weekdays, start: TimeOfDay?, end: TimeOfDay?, building: String = "", room: String = "", kind: String = ""
    ) {
        self.days = days
        self.start = start
        self.end = end
        self.building = building
        self.room = room
        self.kind = kind
    }

    /// A TBA meeting (no days, no times) at an optional place.
    public static func tba(building: String = "", room: String = "", kind: String = "") -> Meeting {
        Meeting(days: [], start: nil, end: nil, building: building, room: room, kind: kind)
    }

    /// Whether the meeting has days and a time span, i.e. a place on the weekly calendar.
    public var isScheduled: Bool {
        guard let start, let end else { return false }
        return !days.isEmpty && start < end
    }

    /// Whether two meetings overlap: they share a day and their times overlap as half-open
    /// intervals `[start, end)`, so a class ending at 10:50 does not clash with one starting
    /// at 10:50. TBA meetings never overlap.
    public func overlaps(_ other: Meeting) -> Bool {
        guard isScheduled, other.isScheduled, let s1 = start, let e1 = end, let s2 = other.start, let e2 = other.end else {
            return false
        }
        return !days.intersection(other.days).isEmpty && s1 < e2 && s2 < e1
    }
}

extension Sequence where Element == Meeting {
    /// Whether any meeting of `self` overlaps any meeting of `other`.
    public func conflicts(with other: some Sequence<Meeting>) -> Bool {
        let mine = filter(\.isScheduled)
        guard !mine.isEmpty else { return false }
        return other.contains { theirs in mine.contains { $0.overlaps(theirs) } }
    }

    /// The days of every scheduled meeting together.
    public var allDays: Weekdays {
        reduce(into: Weekdays()) { days, meeting in if meeting.isScheduled { days.formUnion(meeting.days) } }
    }

    /// The earliest start among scheduled meetings; nil when every meeting is TBA.
    public var earliestStart: TimeOfDay? { filter(\.isScheduled).compactMap(\.start).min() }

    /// The latest end among scheduled meetings; nil when every meeting is TBA.
    public var latestEnd: TimeOfDay? { filter(\.isScheduled).compactMap(\.end).max() }
}
