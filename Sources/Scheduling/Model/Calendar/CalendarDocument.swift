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
        render(terms: [TermSections(term: term, sections: sections)], name: name, uidDomain: uidDomain, stamp: stamp, sequence: sequence)
    }
}
