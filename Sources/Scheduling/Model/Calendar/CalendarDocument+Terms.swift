public import Catalog
public import Foundation

extension CalendarDocument {
    /// The sections of one term, for a calendar that spans several (a student's registration).
    public struct TermSections: Sendable, Equatable {
        public var term: Term
        public var sections: [CalendarSection]

        public init(term: Term, sections: [CalendarSection]) {
            self.term = term
            self.sections = sections
        }
    }

    /// Renders a calendar of several terms: one VTIMEZONE per zone, covering every term in it,
    /// then each term's events. No terms gives a valid calendar without events.
    public static func render(
        terms groups: [TermSections], name: String, uidDomain: String, stamp: Date, sequence: Int
    ) -> String {
        var lines = ContentLines()
        lines.begin("VCALENDAR")
        lines.add("VERSION", "2.0")
        lines.addText("PRODID", productID)
        lines.add("CALSCALE", "GREGORIAN")
        lines.add("METHOD", "PUBLISH")
        lines.addText("X-WR-CALNAME", name)
        if let first = groups.first { lines.addText("X-WR-TIMEZONE", first.term.timeZone) }
        var zones: [String] = []
        for group in groups where !zones.contains(group.term.timeZone) { zones.append(group.term.timeZone) }
        for identifier in zones {
            let terms = groups.map(\.term).filter { $0.timeZone == identifier }
            guard let from = terms.map(\.firstDay).min(), let through = terms.map(\.lastDay).max() else { continue }
            lines.append(CalendarTimeZone(identifier: identifier).component(from: from, through: through))
        }
        for group in groups {
            let writer = CalendarEventWriter(
                term: group.term, zone: CalendarTimeZone(identifier: group.term.timeZone), uidDomain: uidDomain,
                stamp: ICalendarDateTime.utc(stamp), sequence: sequence
            )
            for section in group.sections { lines.append(writer.events(for: section)) }
        }
        lines.end("VCALENDAR")
        return lines.rendered
    }
}
