import TestSupport
import Catalog
import Foundation
import Scheduling
import Testing

/// A calendar the gateway writes, read back by an independent implementation: the project
/// venv's Python with `icalendar` and `recurring-ical-events` (ics_check.py) expands every
/// occurrence, and the test compares them with the dates and times a student should see.
@Suite("Calendar interop (icalendar + recurring-ical-events)")
struct CalendarInteropTests {
    typealias Fixture = CalendarTestData

    struct Report: Decodable {
        var problems: [String]
        var occurrences: [Occurrence]
    }

    struct Occurrence: Decodable, Equatable {
        var uid: String
        var summary: String
        var allDay: Bool
        var start: String
        var end: String
        var utcStart: String?
        var vtimezoneUtcStart: String?
    }

    /// The package root: three levels above this file (Tests/SchedulingTests/<file>).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let hint = "run `make deps` (or `bash scripts/install-deps.sh`) to create .venv with icalendar and recurring-ical-events"

    @Test func occurrencesExpandAsStudentsExpect() throws {
        let report = try Self.check(Fixture.render([Fixture.cmsc131, Fixture.math141, Fixture.online]))
        #expect(report.problems == [])
        let byEvent = Dictionary(grouping: report.occurrences, by: \.uid)
        #expect(byEvent.keys.sorted() == [
            "2024-spring-123-0@campus-gateway", "2024-spring-123-1@campus-gateway",
            "2024-spring-456-0@campus-gateway", "2024-spring-789-tba@campus-gateway",
        ])

        // MWF 10:00-10:50: every Monday, Wednesday and Friday, less Presidents' Day and spring
        // break, plus Tuesday 2024-04-30, which runs Friday's classes.
        let lecture = byEvent["2024-spring-123-0@campus-gateway"] ?? []
        let lectureDates = Self.dates(weekdays: [.monday, .wednesday, .friday],
                                      skipping: ["2024-02-19", "2024-03-11", "2024-03-13", "2024-03-15"], adding: ["2024-04-30"])
        #expect(lecture.count == 42)
        #expect(lecture.map(\.start) == lectureDates.map { "\($0)T10:00:00" })
        #expect(lecture.map(\.end) == lectureDates.map { "\($0)T10:50:00" })
        #expect(lecture.first?.start == "2024-01-22T10:00:00")
        #expect(lecture.last?.start == "2024-05-03T10:00:00")
        #expect(lecture.contains { $0.start == "2024-04-30T10:00:00" })
        #expect(!lecture.contains { $0.start.hasPrefix("2024-02-19") || $0.start.hasPrefix("2024-03-1") && $0.start < "2024-03-16" })
        // 10:00 local on both sides of 2024-03-10: 18:00Z in PST, 17:00Z in PDT, by the
        // system zone database and by the file's own VTIMEZONE alike.
        for occurrence in lecture {
            let utc = occurrence.start < "2024-03-10" ? "T18:00:00Z" : "T17:00:00Z"
            #expect(occurrence.utcStart == String(occurrence.start.prefix(10)) + utc)
            #expect(occurrence.vtimezoneUtcStart == occurrence.utcStart)
        }

        // Thursday lab 14:00-15:15: every Thursday but spring break's.
        let lab = byEvent["2024-spring-123-1@campus-gateway"] ?? []
        #expect(lab.map(\.start) == Self.dates(weekdays: [.thursday], skipping: ["2024-03-14"]).map { "\($0)T14:00:00" })
        #expect(lab.count == 14)

        // TTh 12:30-13:45: not in spring break, not on Tuesday 2024-04-30 (a Friday timetable).
        let calculus = byEvent["2024-spring-456-0@campus-gateway"] ?? []
        let calculusDates = Self.dates(weekdays: [.tuesday, .thursday], skipping: ["2024-03-12", "2024-03-14", "2024-04-30"])
        #expect(calculus.count == 27)
        #expect(calculus.map(\.start) == calculusDates.map { "\($0)T12:30:00" })
        #expect(calculus.map(\.end) == calculusDates.map { "\($0)T13:45:00" })
        #expect(calculus.allSatisfy { $0.vtimezoneUtcStart == $0.utcStart })
        #expect(calculus.first?.utcStart == "2024-01-23T20:30:00Z")
        #expect(calculus.last?.utcStart == "2024-05-02T19:30:00Z")

        // The online class: one all-day note over the whole term.
        #expect(byEvent["2024-spring-789-tba@campus-gateway"] == [Occurrence(
            uid: "2024-spring-789-tba@campus-gateway", summary: "ENGL 101 (ESG1): time to be arranged",
            allDay: true, start: "2024-01-22", end: "2024-05-04"
        )])
        #expect(report.occurrences.allSatisfy { $0.start <= "2024-05-03T99" })
    }

    /// Every date of the spring term on `weekdays`, less `skipping`, plus `adding`, in order;
    /// written out from the calendar itself, not from the writer's rules.
    static func dates(weekdays: Weekdays, skipping: Set<String>, adding: Set<String> = []) -> [String] {
        var result: [String] = []
        var day = Fixture.date("2024-01-22")
        while day <= Fixture.date("2024-05-03") {
            let text = day.description
            if adding.contains(text) || (weekdays.contains(day.weekday) && !skipping.contains(text)) { result.append(text) }
            day = day.adding(days: 1)
        }
        return result
    }

    /// Writes `document` to a temporary file and runs ics_check.py on it with the venv's Python.
    static func check(_ document: String) throws -> Report {
        let python = root.appendingPathComponent(".venv/bin/python")
        let script = root.appendingPathComponent("Tests/SchedulingTests/ics_check.py")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("\(python.path) is missing: \(hint)")
            throw CheckFailed()
        }
        let modules = try run(python, ["-c", "import icalendar, recurring_ical_events"])
        guard modules.status == 0 else {
            Issue.record("the venv lacks icalendar or recurring-ical-events (\(modules.error)): \(hint)")
            throw CheckFailed()
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("calendar-\(UUID().uuidString).ics")
        try Data(document.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try run(python, [script.path, file.path])
        guard result.status == 0 else {
            Issue.record("ics_check.py exited \(result.status): \(result.error)")
            throw CheckFailed()
        }
        return try JSONDecoder().decode(Report.self, from: result.output)
    }

    struct CheckFailed: Error {}

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        let process = TestProcess()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = root
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, outputData, String(decoding: errorData, as: UTF8.self))
    }
}
