import Catalog
import Scheduling
import Testing

/// The VTIMEZONE: observances read from the system zone database, offsets and UTC conversion.
@Suite("Calendar time zones")
struct CalendarTimeZoneTests {
    typealias Fixture = CalendarTestData

    /// The unfolded lines of the document's VTIMEZONE, without BEGIN/END:VTIMEZONE.
    static func vtimezone(_ document: String) -> [String] {
        let lines = Fixture.lines(document)
        guard let begin = lines.firstIndex(of: "BEGIN:VTIMEZONE"), let end = lines.firstIndex(of: "END:VTIMEZONE") else { return [] }
        return Array(lines[(begin + 1)..<end])
    }

    @Test func losAngelesAcrossTheMarchChangeHasBothObservances() {
        let zone = Self.vtimezone(Fixture.render([Fixture.cmsc131]))
        #expect(zone == [
            "TZID:America/Los_Angeles",
            "BEGIN:STANDARD",
            "DTSTART:20231105T020000", "TZOFFSETFROM:-0700", "TZOFFSETTO:-0800", "TZNAME:\(Self.name("America/Los_Angeles", "2024-01-22"))",
            "END:STANDARD",
            "BEGIN:DAYLIGHT",
            "DTSTART:20240310T020000", "TZOFFSETFROM:-0800", "TZOFFSETTO:-0700", "TZNAME:\(Self.name("America/Los_Angeles", "2024-04-01"))",
            "END:DAYLIGHT",
        ])
    }

    @Test func aFallTermCoversTheNovemberChange() {
        let observances = CalendarTimeZone(identifier: "America/New_York")
            .observances(from: Fixture.date("2024-08-26"), through: Fixture.date("2024-12-13"))
        #expect(observances.map(\.isDaylight) == [true, false])
        #expect(observances.map(\.offsetTo) == [-4 * 3600, -5 * 3600])
        #expect(observances.map(\.offsetFrom) == [-5 * 3600, -4 * 3600])
    }

    @Test(arguments: [("Asia/Tokyo", "+0900"), ("UTC", "+0000"), ("Asia/Kolkata", "+0530")])
    func aZoneWithoutDaylightTimeHasOneStandardObservance(zone: String, offset: String) {
        var term = Fixture.spring
        term.timeZone = zone
        let lines = Self.vtimezone(Fixture.render([Fixture.cmsc131], term: term))
        #expect(lines.first == "TZID:\(zone)")
        #expect(lines.filter { $0 == "BEGIN:STANDARD" }.count == 1)
        #expect(!lines.contains("BEGIN:DAYLIGHT"))
        #expect(lines.contains("TZOFFSETFROM:\(offset)") && lines.contains("TZOFFSETTO:\(offset)"))
        #expect(lines.contains("DTSTART:19700101T000000"))
    }

    @Test func offsetsAreSignedHoursAndMinutesWithSecondsOnlyWhenThereAreAny() {
        #expect(ICalendarDateTime.offset(-8 * 3600) == "-0800")
        #expect(ICalendarDateTime.offset(0) == "+0000")
        #expect(ICalendarDateTime.offset(5 * 3600 + 1800) == "+0530")
        #expect(ICalendarDateTime.offset(-(3600 + 15 * 60 + 14)) == "-011514")
    }

    @Test func localWallTimeConvertsToUTCOnEitherSideOfTheChange() {
        let zone = CalendarTimeZone(identifier: "America/Los_Angeles")
        #expect(ICalendarDateTime.utc(secondsSinceEpoch: zone.instant(Fixture.date("2024-03-08"), secondsAfterMidnight: 36_000)) == "20240308T180000Z")
        #expect(ICalendarDateTime.utc(secondsSinceEpoch: zone.instant(Fixture.date("2024-03-11"), secondsAfterMidnight: 36_000)) == "20240311T170000Z")
        #expect(ICalendarDateTime.local(Fixture.date("2024-12-31"), secondsAfterMidnight: 86_400) == "20250101T000000")
    }

    @Test func anUnknownZoneFallsBackToUTC() {
        #expect(CalendarTimeZone(identifier: "Mars/Olympus_Mons").identifier == "UTC")
    }

    /// The abbreviation Foundation gives on this platform (`PST` on Darwin, `GMT-8` on Linux).
    static func name(_ zone: String, _ date: String) -> String {
        let calendarZone = CalendarTimeZone(identifier: zone)
        let day = Fixture.date(date)
        return calendarZone.observances(from: day, through: day).last?.name ?? ""
    }
}
