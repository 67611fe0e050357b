import Catalog
import Foundation
import Scheduling
import Testing

/// The calendar document: header, events, recurrence, holidays, transfer days, TBA notes.
@Suite("Calendar writer")
struct CalendarWriterTests {
    typealias Fixture = CalendarTestData
    static let zoned = "TZID=America/Los_Angeles"

    @Test func theHeaderNamesTheCalendarAndItsZone() {
        let lines = Fixture.lines(Fixture.render([Fixture.cmsc131], name: "Plan A, spring"))
        #expect(Array(lines.prefix(7)) == [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Campus Gateway//Schedule Export//EN", "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH", #"X-WR-CALNAME:Plan A\, spring"#, "X-WR-TIMEZONE:America/Los_Angeles",
        ])
        #expect(lines.last == "END:VCALENDAR")
        #expect(CalendarDocument.contentType == "text/calendar; charset=utf-8")
    }

    @Test func eachMeetingPatternIsOneWeeklyEvent() throws {
        let events = Fixture.events(Fixture.render([Fixture.cmsc131], sequence: 3))
        try #require(events.count == 2)
        let lecture = events[0], lab = events[1]
        #expect(Fixture.values("UID", in: lecture) == ["2024-spring-123-0@campus-gateway"])
        #expect(Fixture.values("UID", in: lab) == ["2024-spring-123-1@campus-gateway"])
        #expect(Fixture.values("DTSTAMP", in: lecture) == ["20240111T190640Z"])
        #expect(Fixture.values("SEQUENCE", in: lecture) == ["3"])
        #expect(Fixture.values("DTSTART;\(Self.zoned)", in: lecture) == ["20240122T100000"])
        #expect(Fixture.values("DTEND;\(Self.zoned)", in: lecture) == ["20240122T105000"])
        #expect(Fixture.values("RRULE", in: lecture) == ["FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20240504T065959Z"])
        #expect(Fixture.values("SUMMARY", in: lecture) == ["CMSC 131 Lecture (0101)"])
        #expect(Fixture.values("LOCATION", in: lecture) == ["IRB 0324"])
        #expect(Fixture.values("DESCRIPTION", in: lecture) == [
            #"Object-Oriented Programming I\nSection: 0101\nInstructor: Ada Lovelace\nUnits: 4\nClass ID: 123"#,
        ])
        #expect(Fixture.values("TRANSP", in: lecture) == ["OPAQUE"])
        // The lab is on Thursdays: its first is the term's first Thursday.
        #expect(Fixture.values("DTSTART;\(Self.zoned)", in: lab) == ["20240125T140000"])
        #expect(Fixture.values("DTEND;\(Self.zoned)", in: lab) == ["20240125T151500"])
        #expect(Fixture.values("RRULE", in: lab) == ["FREQ=WEEKLY;BYDAY=TH;UNTIL=20240504T065959Z"])
    }

    @Test func holidaysOnMeetingDaysAreExcludedAndOthersAreNot() {
        let events = Fixture.events(Fixture.render([Fixture.cmsc131, Fixture.math141]))
        // MWF: Presidents' Day (Monday) and the break's Monday, Wednesday and Friday.
        #expect(Fixture.values("EXDATE;\(Self.zoned)", in: events[0]) == [
            "20240219T100000", "20240311T100000", "20240313T100000", "20240315T100000",
        ])
        // Thursday lab: only the break's Thursday; Presidents' Day is a Monday.
        #expect(Fixture.values("EXDATE;\(Self.zoned)", in: events[1]) == ["20240314T140000"])
        // TTh: the break's Tuesday and Thursday, and the Tuesday that runs Friday's classes.
        #expect(Fixture.values("EXDATE;\(Self.zoned)", in: events[2]) == [
            "20240312T123000", "20240314T123000", "20240430T123000",
        ])
    }

    @Test func aTransferDayAddsTheWeekdayItFollows() {
        let events = Fixture.events(Fixture.render([Fixture.cmsc131, Fixture.math141]))
        #expect(Fixture.values("RDATE;\(Self.zoned)", in: events[0]) == ["20240430T100000"])
        #expect(Fixture.values("RDATE;\(Self.zoned)", in: events[1]).isEmpty)
        #expect(Fixture.values("RDATE;\(Self.zoned)", in: events[2]).isEmpty)
    }

    @Test func aTransferDayFollowingAnotherMeetingDayKeepsTheClass() {
        var term = Fixture.spring
        term.transferDays = [Term.TransferDay(date: Fixture.date("2024-04-30"), follows: .thursday)]
        let recurrence = TermRecurrence(term: term, days: [.tuesday, .thursday])
        #expect(recurrence.exceptions == [Fixture.date("2024-03-12"), Fixture.date("2024-03-14")])
        #expect(recurrence.additions.isEmpty)
        #expect(recurrence.dates.contains(Fixture.date("2024-04-30")))
    }

    @Test func aHolidayOnTheFirstDayMovesTheStartInsteadOfExcludingIt() {
        var term = Fixture.spring
        term.holidays = [Term.Holiday(date: Fixture.date("2024-01-22"), name: "Opening day")]
        let recurrence = TermRecurrence(term: term, days: [.monday, .wednesday, .friday])
        #expect(recurrence.first == Fixture.date("2024-01-24"))
        #expect(recurrence.exceptions.isEmpty)
        #expect(recurrence.hasWeeklyRule && recurrence.byDay == "MO,WE,FR")
    }

    @Test func identicalMeetingsMergeAndDifferentTimesNever() {
        var section = Fixture.math141
        section.meetings = [
            Fixture.meeting("TTH", "12:30", "13:45", building: "MTH", room: "0101", kind: "Lecture"),
            Fixture.meeting("TTH", "12:30", "13:45", building: "MTH", room: "0101", kind: "Lecture"),
            Fixture.meeting("TTH", "12:30", "13:45", building: "MTH", room: "0101", kind: "Discussion"),
            Fixture.meeting("TTH", "14:00", "14:50", building: "MTH", room: "0101", kind: "Lecture"),
        ]
        let events = Fixture.events(Fixture.render([section]))
        #expect(events.count == 2)
        #expect(events.flatMap { Fixture.values("SUMMARY", in: $0) } == [
            "MATH 141 Lecture / Discussion (0201)", "MATH 141 Lecture (0201)",
        ])
    }

    @Test func tbaMeetingsBecomeOneAllTermNote() throws {
        let events = Fixture.events(Fixture.render([Fixture.online]))
        let note = try #require(events.first)
        #expect(events.count == 1)
        #expect(Fixture.values("UID", in: note) == ["2024-spring-789-tba@campus-gateway"])
        #expect(Fixture.values("DTSTART;VALUE=DATE", in: note) == ["20240122"])
        #expect(Fixture.values("DTEND;VALUE=DATE", in: note) == ["20240504"])
        #expect(Fixture.values("SUMMARY", in: note) == ["ENGL 101 (ESG1): time to be arranged"])
        #expect(Fixture.values("TRANSP", in: note) == ["TRANSPARENT"])
        #expect(!note.contains { $0.hasPrefix("RRULE") || $0.hasPrefix("DTSTART;TZID") })
        #expect(Fixture.values("DESCRIPTION", in: note).first?.hasSuffix(#"\nTo be arranged: Lecture ONLINE"#) == true)
    }

    @Test func aSectionWithTimedAndOnlineMeetingsGetsBoth() {
        var section = Fixture.math141
        section.meetings.append(.tba(kind: "Laboratory"))
        let events = Fixture.events(Fixture.render([section]))
        #expect(events.map { Fixture.values("UID", in: $0) } == [
            ["2024-spring-456-0@campus-gateway"], ["2024-spring-456-tba@campus-gateway"],
        ])
    }

    @Test func identicalInputsGiveIdenticalBytes() {
        let sections = [Fixture.cmsc131, Fixture.math141, Fixture.online]
        #expect(Fixture.render(sections) == Fixture.render(sections))
        #expect(Fixture.render(sections, sequence: 1) != Fixture.render(sections, sequence: 2))
    }

    @Test func untilIsTheEndOfTheLastDayInUTC() {
        var term = Fixture.spring
        term.timeZone = "Asia/Tokyo"
        let events = Fixture.events(Fixture.render([Fixture.math141], term: term))
        #expect(Fixture.values("RRULE", in: events[0]) == ["FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20240503T145959Z"])
        #expect(Fixture.values("DTSTART;TZID=Asia/Tokyo", in: events[0]) == ["20240123T123000"])
    }

    @Test func aPatternThatNeverMeetsWritesNoEvent() {
        var term = Fixture.spring
        term.firstDay = Fixture.date("2024-01-22") // a Monday
        term.lastDay = Fixture.date("2024-01-23")
        var section = Fixture.cmsc131
        section.meetings = [Fixture.meeting("F", "09:00", "09:50")]
        #expect(Fixture.events(Fixture.render([section], term: term)).isEmpty)
    }

    @Test(arguments: [
        ("Plan A", "2024-spring", "plan-a-2024-spring.ics"),
        ("Été — Plan B!", "2024-fall", "ete-plan-b-2024-fall.ics"),
        ("  ", "202005", "schedule-202005.ics"),
        ("Plan 2024-spring", "2024-spring", "plan-2024-spring.ics"),
        ("計画", "t/../x", "schedule-t-x.ics"),
        ("a\"b\r\nc", "2024", "a-b-c-2024.ics"),
    ])
    func filenamesAreSafeASCII(name: String, term: String, expected: String) {
        let filename = CalendarDocument.filename(displayName: name, termID: term)
        #expect(filename == expected)
        #expect(filename.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "/") })
    }

    @Test func longNamesAreShortened() {
        let filename = CalendarDocument.filename(displayName: String(repeating: "word ", count: 40), termID: "2024-spring")
        #expect(filename.count <= 60 + 1 + 40 + 4)
        #expect(!filename.contains("--"))
        #expect(CalendarDocument.contentDisposition(displayName: "Plan A", termID: "2024-spring") == #"attachment; filename="plan-a-2024-spring.ics""#)
    }
}
