import Catalog
import Foundation
import Scheduling

/// The terms and sections the calendar tests share.
enum CalendarTestData {
    static func date(_ text: String) -> CivilDate { CivilDate(parsing: text)! }
    static func time(_ text: String) -> TimeOfDay { TimeOfDay(parsing: text)! }

    static func meeting(_ days: String, _ start: String, _ end: String, building: String = "", room: String = "", kind: String = "") -> Meeting {
        Meeting(days: Weekdays(parsing: days)!, start: time(start), end: time(end), building: building, room: room, kind: kind)
    }

    /// Spring 2024 in Los Angeles: it spans the March DST change, has a one-day holiday, a
    /// week's break, and a Tuesday that runs Friday's classes.
    static let spring = Term(
        id: "2024-spring", name: "Spring 2024", firstDay: date("2024-01-22"), lastDay: date("2024-05-03"),
        timeZone: "America/Los_Angeles",
        holidays: [
            Term.Holiday(date: date("2024-02-19"), name: "Presidents' Day"),
            Term.Holiday(from: date("2024-03-11"), to: date("2024-03-15"), name: "Spring break"),
        ],
        transferDays: [Term.TransferDay(date: date("2024-04-30"), follows: .friday)]
    )

    /// MWF 10:00-10:50 lecture and a Thursday 14:00-15:15 lab.
    static let cmsc131 = CalendarSection(
        classID: 123, courseLabel: "CMSC 131", title: "Object-Oriented Programming I", section: "0101",
        instructors: ["Ada Lovelace"], units: "4",
        meetings: [
            meeting("MWF", "10:00", "10:50", building: "IRB", room: "0324", kind: "Lecture"),
            meeting("TH", "14:00", "15:15", building: "IRB", room: "1116", kind: "Laboratory"),
        ]
    )

    /// TTh 12:30-13:45.
    static let math141 = CalendarSection(
        classID: 456, courseLabel: "MATH 141", title: "Calculus II", section: "0201",
        instructors: ["Emmy Noether", "Carl Gauss"], units: "4",
        meetings: [meeting("TTH", "12:30", "13:45", building: "MTH", room: "0101")]
    )

    /// Online only: no days, no times.
    static let online = CalendarSection(
        classID: 789, courseLabel: "ENGL 101", title: "Academic Writing", section: "ESG1", units: "3",
        meetings: [.tba(building: "ONLINE", kind: "Lecture")]
    )

    static let stamp = Date(timeIntervalSince1970: 1_705_000_000) // 2024-01-11T19:06:40Z

    static func render(
        _ sections: [CalendarSection], term: Term = spring, name: String = "Plan A", sequence: Int = 0
    ) -> String {
        CalendarDocument.render(term: term, sections: sections, name: name, uidDomain: "campus-gateway", stamp: stamp, sequence: sequence)
    }

    /// The unfolded content lines of a document.
    static func lines(_ document: String) -> [String] {
        var lines = ICalendarText.unfold(document).components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The unfolded lines of each VEVENT, in order.
    static func events(_ document: String) -> [[String]] {
        var events: [[String]] = []
        var current: [String]?
        for line in lines(document) {
            if line == "BEGIN:VEVENT" {
                current = []
            } else if line == "END:VEVENT" {
                events.append(current ?? [])
                current = nil
            } else {
                current?.append(line)
            }
        }
        return events
    }

    /// The values of the property `name` (with its parameters, e.g. `EXDATE;TZID=...`) in `lines`.
    static func values(_ name: String, in lines: [String]) -> [String] {
        lines.compactMap { line in line.hasPrefix(name + ":") ? String(line.dropFirst(name.count + 1)) : nil }
    }
}
