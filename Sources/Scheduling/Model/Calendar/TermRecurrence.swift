public import Catalog

/// The dates a weekly meeting pattern meets in a term, and how a recurrence rule says them:
/// the pattern's weekdays from the first day it meets through the term's last day
/// (`first` + RRULE), less the pattern dates that do not meet (`exceptions`: holidays, and
/// transfer days that run another weekday's timetable), plus the transfer days that run one of
/// the pattern's weekdays (`additions`) unless they are holidays.
public struct TermRecurrence: Sendable, Equatable {
    /// The weekdays of the pattern.
    public let days: Weekdays
    /// The first date on or after the term's first day that is one of `days` and meets: the
    /// DTSTART of the event. Nil when no regular date meets (every one is a holiday or a
    /// transfer day); the additions may still.
    public let first: CivilDate?
    /// Dates after `first` that the weekly rule produces but on which the class does not meet.
    public let exceptions: [CivilDate]
    /// Dates the weekly rule does not produce (or produces before `first`) on which the class
    /// meets: transfer days that follow one of `days`.
    public let additions: [CivilDate]
    /// Every date the pattern meets in the term, in order.
    public let dates: [CivilDate]

    /// The recurrence of a pattern meeting on `days` in `term`.
    public init(term: Term, days: Weekdays) {
        self.days = days
        var first: CivilDate?
        var exceptions: [CivilDate] = []
        var additions: [CivilDate] = []
        var dates: [CivilDate] = []
        var date = term.firstDay
        while date <= term.lastDay, !days.isEmpty {
            let isPatternDay = days.contains(date.weekday)
            let meets = !term.isHoliday(date) && days.contains(term.timetableDay(of: date))
            if meets { dates.append(date) }
            if isPatternDay, first != nil, !meets {
                exceptions.append(date)
            } else if isPatternDay, first == nil, meets {
                first = date
            } else if !isPatternDay, meets {
                additions.append(date)
            }
            date = date.adding(days: 1)
        }
        if first == nil, !additions.isEmpty {
            // No regular date meets: the first transfer day starts the event, without a rule.
            first = additions.removeFirst()
        }
        self.first = first
        self.exceptions = exceptions
        self.additions = additions
        self.dates = dates
    }

    /// Whether the weekly rule applies: some date of the pattern itself meets.
    public var hasWeeklyRule: Bool { first.map { days.contains($0.weekday) } ?? false }

    /// The RRULE BYDAY list: `MO,WE,FR`.
    public var byDay: String {
        zip(Weekdays.ordered, ["MO", "TU", "WE", "TH", "FR", "SA", "SU"])
            .filter { days.contains($0.0) }.map(\.1).joined(separator: ",")
    }
}
