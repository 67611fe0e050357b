public import Catalog
public import Foundation

/// A term's schedule as an RFC 5545 `text/calendar` document: a VTIMEZONE for the term's
/// zone, one weekly recurring VEVENT per meeting pattern of each section (holidays and
/// transfer days applied with EXDATE and RDATE), and an all-term note for TBA meetings.
///
/// Rendering is pure: the same inputs give the same bytes (UIDs derive from the term, the
/// class and the pattern; the stamp is an argument). Only the system time-zone database is
/// read, for the zone's offsets.
public enum CalendarDocument {
    /// The media type to answer with.
    public static let contentType = "text/calendar; charset=utf-8"
    /// The PRODID of every document.
    public static let productID = "-//Campus Gateway//Schedule Export//EN"

    /// Renders the calendar.
    /// - Parameters:
    ///   - term: the term: its days, zone, holidays and transfer days.
    ///   - sections: the sections to show, in order.
    ///   - name: the calendar's display name (X-WR-CALNAME).
    ///   - uidDomain: the right-hand side of every UID (`campus-gateway`).
    ///   - stamp: DTSTAMP of every event (when the calendar was made).
    ///   - sequence: SEQUENCE of every event; raise it when the schedule changes.
    /// - Returns: the document, CRLF line ends, lines folded at 75 octets.
    public static func render(
        term: Term, sections: [CalendarSection], name: String, uidDomain: String, stamp: Date, sequence: Int
    ) -> String {
        let zone = CalendarTimeZone(identifier: term.timeZone)
        var lines = ContentLines()
        lines.begin("VCALENDAR")
        lines.add("VERSION", "2.0")
        lines.addText("PRODID", productID)
        lines.add("CALSCALE", "GREGORIAN")
        lines.add("METHOD", "PUBLISH")
        lines.addText("X-WR-CALNAME", name)
        lines.addText("X-WR-TIMEZONE", zone.identifier)
        lines.append(zone.component(from: term.firstDay, through: term.lastDay))
        let writer = CalendarEventWriter(
            term: term, zone: zone, uidDomain: uidDomain, stamp: ICalendarDateTime.utc(stamp), sequence: sequence
        )
        for section in sections { lines.append(writer.events(for: section)) }
        lines.end("VCALENDAR")
        return lines.rendered
    }
}
