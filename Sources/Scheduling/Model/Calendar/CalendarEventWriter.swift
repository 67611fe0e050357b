import Catalog
import Foundation

/// Writes the VEVENTs of one section: one recurring event per weekly pattern and, when the
/// section has TBA or online meetings, one all-term note about them.
struct CalendarEventWriter {
    let term: Term
    let zone: CalendarTimeZone
    let uidDomain: String
    /// DTSTAMP, already in UTC form.
    let stamp: String
    let sequence: Int

    /// Every event of `section`, patterns first, then the note.
    func events(for section: CalendarSection) -> ContentLines {
        var lines = ContentLines()
        for (index, pattern) in section.patterns.enumerated() {
            lines.append(timedEvent(section, pattern, index: index))
        }
        if !section.unscheduledMeetings.isEmpty { lines.append(note(section)) }
        return lines
    }

    /// The recurring event of one weekly pattern; nothing when the pattern never meets.
    func timedEvent(_ section: CalendarSection, _ pattern: CalendarSection.Pattern, index: Int) -> ContentLines {
        let recurrence = TermRecurrence(term: term, days: pattern.days)
        var lines = ContentLines()
        guard let first = recurrence.first else { return lines }
        let start = pattern.start.minutes * 60
        let zoned = [("TZID", zone.identifier)]
        lines.begin("VEVENT")
        header(&lines, uid: "\(term.id)-\(section.classID)-\(index)")
        lines.add("DTSTART", ICalendarDateTime.local(first, secondsAfterMidnight: start), parameters: zoned)
        lines.add("DTEND", ICalendarDateTime.local(first, secondsAfterMidnight: pattern.end.minutes * 60), parameters: zoned)
        if recurrence.hasWeeklyRule {
            lines.add("RRULE", "FREQ=WEEKLY;BYDAY=\(recurrence.byDay);UNTIL=\(until)")
        }
        for date in recurrence.exceptions {
            lines.add("EXDATE", ICalendarDateTime.local(date, secondsAfterMidnight: start), parameters: zoned)
        }
        for date in recurrence.additions {
            lines.add("RDATE", ICalendarDateTime.local(date, secondsAfterMidnight: start), parameters: zoned)
        }
        let label = section.courseLabel.trimmingCharacters(in: .whitespaces)
        let what = pattern.kind.isEmpty ? label : "\(label) \(pattern.kind)"
        let number = section.section.trimmingCharacters(in: .whitespaces)
        lines.addText("SUMMARY", number.isEmpty ? what : "\(what) (\(number))")
        let place = [pattern.building, pattern.room].filter { !$0.isEmpty }.joined(separator: " ")
        if !place.isEmpty { lines.addText("LOCATION", place) }
        lines.addText("DESCRIPTION", section.details)
        lines.add("TRANSP", "OPAQUE")
        lines.end("VEVENT")
        return lines
    }

    /// The all-term note for a section's TBA or online meetings: an all-day event from the
    /// first day through the last (DTEND is the day after, as DATE ends are exclusive).
    func note(_ section: CalendarSection) -> ContentLines {
        var lines = ContentLines()
        lines.begin("VEVENT")
        header(&lines, uid: "\(term.id)-\(section.classID)-tba")
        lines.add("DTSTART", ICalendarDateTime.date(term.firstDay), parameters: [("VALUE", "DATE")])
        lines.add("DTEND", ICalendarDateTime.date(term.lastDay.adding(days: 1)), parameters: [("VALUE", "DATE")])
        lines.addText("SUMMARY", "\(section.label): time to be arranged")
        var details = [section.details]
        for meeting in section.unscheduledMeetings {
            let parts = [meeting.kind, meeting.days.sdsu, meeting.building, meeting.room]
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if !parts.isEmpty { details.append("To be arranged: " + parts.joined(separator: " ")) }
        }
        lines.addText("DESCRIPTION", details.joined(separator: "\n"))
        lines.add("TRANSP", "TRANSPARENT")
        lines.end("VEVENT")
        return lines
    }

    /// The end of the term's last day in its zone, in UTC, as RRULE's UNTIL must be when
    /// DTSTART has a TZID (RFC 5545 §3.3.10).
    var until: String {
        ICalendarDateTime.utc(secondsSinceEpoch: zone.instant(term.lastDay, secondsAfterMidnight: 86_399))
    }

    private func header(_ lines: inout ContentLines, uid: String) {
        lines.addText("UID", "\(uid)@\(uidDomain)")
        lines.add("DTSTAMP", stamp)
        lines.add("SEQUENCE", String(max(0, sequence)))
    }
}
