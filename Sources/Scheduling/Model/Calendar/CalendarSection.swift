public import Catalog
import Foundation

/// One class section as a calendar shows it: what to call it and when and where it meets.
public struct CalendarSection: Sendable, Equatable {
    /// The catalog's class id; with the term id it makes each event's UID.
    public var classID: Int64
    /// Subject and number: `CMSC 131`.
    public var courseLabel: String
    /// The course title: `Object-Oriented Programming I`.
    public var title: String
    /// The section number: `0101`.
    public var section: String
    public var instructors: [String]
    /// Units or credits as the catalog writes them: `3`, `1-3`.
    public var units: String
    public var meetings: [Meeting]

    public init(
        classID: Int64, courseLabel: String, title: String, section: String,
        instructors: [String] = [], units: String = "", meetings: [Meeting]
    ) {
        self.classID = classID
        self.courseLabel = courseLabel
        self.title = title
        self.section = section
        self.instructors = instructors
        self.units = units
        self.meetings = meetings
    }

    /// One weekly pattern of the section: the scheduled meetings that share days, times and
    /// place, merged (their kinds joined), in the order they first appear.
    public struct Pattern: Sendable, Equatable {
        public var days: Weekdays
        public var start: TimeOfDay
        public var end: TimeOfDay
        public var building: String
        public var room: String
        public var kind: String
    }

    /// The scheduled meetings as weekly patterns; identical days, times and place merge.
    public var patterns: [Pattern] {
        var result: [Pattern] = []
        for meeting in meetings where meeting.isScheduled {
            guard let start = meeting.start, let end = meeting.end else { continue }
            let building = meeting.building.calendarTrimmed, room = meeting.room.calendarTrimmed, kind = meeting.kind.calendarTrimmed
            if let index = result.firstIndex(where: {
                $0.days == meeting.days && $0.start == start && $0.end == end && $0.building == building && $0.room == room
            }) {
                let kinds = result[index].kind.isEmpty ? [] : result[index].kind.components(separatedBy: " / ")
                if !kind.isEmpty, !kinds.contains(kind) { result[index].kind = (kinds + [kind]).joined(separator: " / ") }
                continue
            }
            result.append(Pattern(days: meeting.days, start: start, end: end, building: building, room: room, kind: kind))
        }
        return result
    }

    /// The meetings with no place on a weekly calendar (TBA or online); a section without any
    /// meeting counts as one such.
    public var unscheduledMeetings: [Meeting] {
        meetings.isEmpty ? [.tba()] : meetings.filter { !$0.isScheduled }
    }

    /// `CMSC 131 (0101)`, or `CMSC 131` without a section number.
    var label: String {
        section.calendarTrimmed.isEmpty ? courseLabel.calendarTrimmed : "\(courseLabel.calendarTrimmed) (\(section.calendarTrimmed))"
    }

    /// The event description: title, section, instructors, units and class id, one a line.
    var details: String {
        var lines: [String] = []
        if !title.calendarTrimmed.isEmpty { lines.append(title.calendarTrimmed) }
        if !section.calendarTrimmed.isEmpty { lines.append("Section: \(section.calendarTrimmed)") }
        let names = instructors.map(\.calendarTrimmed).filter { !$0.isEmpty }
        if !names.isEmpty { lines.append((names.count == 1 ? "Instructor: " : "Instructors: ") + names.joined(separator: ", ")) }
        if !units.calendarTrimmed.isEmpty { lines.append("Units: \(units.calendarTrimmed)") }
        lines.append("Class ID: \(classID)")
        return lines.joined(separator: "\n")
    }
}

private extension String {
    var calendarTrimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
