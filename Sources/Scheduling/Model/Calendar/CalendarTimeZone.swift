public import Catalog
import Foundation

/// A term's IANA time zone as a calendar needs it: local wall time to UTC, and the
/// STANDARD / DAYLIGHT observances of its VTIMEZONE, read from the system time-zone database
/// through Foundation's `TimeZone`.
public struct CalendarTimeZone: Sendable {
    /// The TZID the calendar writes (`America/Los_Angeles`).
    public let identifier: String
    let zone: TimeZone

    /// The zone named `identifier`; an unknown name falls back to UTC (``Term/validate()``
    /// refuses such terms, so this only keeps rendering total).
    public init(identifier: String) {
        if let zone = TimeZone(identifier: identifier) {
            self.identifier = identifier
            self.zone = zone
        } else {
            self.identifier = "UTC"
            self.zone = TimeZone(identifier: "UTC") ?? .gmt
        }
    }

    /// One STANDARD or DAYLIGHT sub-component: from `start` (local wall time in the offset in
    /// force before it, as RFC 5545 writes DTSTART there) the zone is `offsetTo` seconds from UTC.
    public struct Observance: Sendable, Equatable {
        public var isDaylight: Bool
        /// Wall-clock seconds since 1970-01-01T00:00:00 in the `offsetFrom` offset.
        public var start: Int
        public var offsetFrom: Int
        public var offsetTo: Int
        public var name: String
    }

    /// The UTC instant (seconds since 1970) of the wall time `seconds` after midnight on
    /// `date` in this zone. A wall time skipped by a DST change resolves like the clocks did
    /// just before it.
    public func instant(_ date: CivilDate, secondsAfterMidnight seconds: Int) -> Int {
        let wall = date.daysSinceEpoch * 86_400 + seconds
        let guess = offset(at: wall)
        return wall - offset(at: wall - guess)
    }

    /// Seconds east of UTC at an instant (seconds since 1970).
    public func offset(at instant: Int) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
    }

    /// The observances in force from the start of `firstDay` through the end of `lastDay`:
    /// the last transition before the term (looking back up to 400 days) and every transition
    /// inside it. A zone without transitions gets one STANDARD observance dated 1970-01-01.
    public func observances(from firstDay: CivilDate, through lastDay: CivilDate) -> [Observance] {
        let termStart = instant(firstDay, secondsAfterMidnight: 0)
        let termEnd = instant(lastDay.adding(days: 1), secondsAfterMidnight: 0)
        var transitions: [Int] = []
        var cursor = termStart - 400 * 86_400
        while transitions.count < 1_000,
              let next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(cursor))) {
            let seconds = Int(next.timeIntervalSince1970.rounded(.down))
            guard seconds > cursor, seconds < termEnd else { break }
            transitions.append(seconds)
            cursor = seconds
        }
        var result: [Observance] = []
        if let before = transitions.last(where: { $0 <= termStart }) {
            result.append(observance(at: before))
        } else {
            let offset = offset(at: termStart)
            let name = zone.abbreviation(for: Date(timeIntervalSince1970: TimeInterval(termStart)))
            result.append(Observance(isDaylight: false, start: 0, offsetFrom: offset, offsetTo: offset, name: name ?? ICalendarDateTime.offset(offset)))
        }
        result += transitions.filter { $0 > termStart }.map(observance(at:))
        return result
    }

    /// The VTIMEZONE component for a term running `firstDay` through `lastDay`.
    func component(from firstDay: CivilDate, through lastDay: CivilDate) -> ContentLines {
        var lines = ContentLines()
        lines.begin("VTIMEZONE")
        lines.add("TZID", identifier)
        for observance in observances(from: firstDay, through: lastDay) {
            let kind = observance.isDaylight ? "DAYLIGHT" : "STANDARD"
            lines.begin(kind)
            lines.add("DTSTART", ICalendarDateTime.wallClock(observance.start))
            lines.add("TZOFFSETFROM", ICalendarDateTime.offset(observance.offsetFrom))
            lines.add("TZOFFSETTO", ICalendarDateTime.offset(observance.offsetTo))
            lines.addText("TZNAME", observance.name)
            lines.end(kind)
        }
        lines.end("VTIMEZONE")
        return lines
    }

    private func observance(at transition: Int) -> Observance {
        let date = Date(timeIntervalSince1970: TimeInterval(transition))
        let from = offset(at: transition - 1), to = offset(at: transition)
        let name = zone.abbreviation(for: date) ?? ICalendarDateTime.offset(to)
        return Observance(isDaylight: zone.isDaylightSavingTime(for: date), start: transition + from, offsetFrom: from, offsetTo: to, name: name)
    }
}
