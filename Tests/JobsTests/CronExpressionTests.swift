import Foundation
import Jobs
import Testing

@Suite("Cron expressions: parsing and next-run math")
struct CronExpressionTests {
    static let utc = TimeZone(identifier: "UTC")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// A wall-clock time in `zone` (first occurrence when repeated).
    static func date(_ text: String, _ zone: TimeZone = utc) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    static func utcDate(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    func next(_ cron: String, after: Date, _ zone: TimeZone = utc) throws -> Date? {
        try CronExpression(cron).nextFire(after: after, in: zone)
    }

    /// The next `count` fire times.
    func fires(_ cron: String, after: Date, count: Int, _ zone: TimeZone = utc) throws -> [Date] {
        let expression = try CronExpression(cron)
        var result: [Date] = []
        var cursor = after
        for _ in 0..<count {
            guard let fire = expression.nextFire(after: cursor, in: zone) else { break }
            result.append(fire)
            cursor = fire
        }
        return result
    }

    @Test func parsesFieldsWithRangesStepsListsAndNames() throws {
        let expression = try CronExpression("*/15 9-17/4 1,15 * mon-fri")
        #expect(expression.minutes == [0, 15, 30, 45])
        #expect(expression.hours == [9, 13, 17])
        #expect(expression.daysOfMonth == [1, 15])
        #expect(expression.months == Array(1...12))
        #expect(expression.daysOfWeek == [1, 2, 3, 4, 5])
        #expect(try CronExpression("0 0 * jan,jul 7").daysOfWeek == [0])
        #expect(try CronExpression("0 0 * JAN,Jul *").months == [1, 7])
        #expect(try CronExpression("5/20 * * * *").minutes == [5, 25, 45])
        #expect(try CronExpression("@hourly").minutes == [0])
        #expect(try CronExpression("@hourly").hours == Array(0...23))
        #expect(try CronExpression("@daily").hours == [0])
        #expect(try CronExpression("@weekly").daysOfWeek == [0])
    }

    @Test(arguments: [
        "", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 13 *",
        "* * * * 8", "*/0 * * * *", "5-1 * * * *", "a * * * *", "1,,2 * * * *", "0 0 30 2 *", "0 0 31 4,6 *", "1-2-3 * * * *",
    ])
    func refusesInvalidExpressions(_ text: String) {
        #expect(throws: CronExpression.ParseError.self) { try CronExpression(text) }
    }

    @Test func everyMinuteAndSteps() throws {
        let start = Self.utcDate("2026-03-10T10:07:30Z")
        #expect(try next("* * * * *", after: start) == Self.utcDate("2026-03-10T10:08:00Z"))
        #expect(try next("*/15 * * * *", after: start) == Self.utcDate("2026-03-10T10:15:00Z"))
        #expect(try next("*/15 * * * *", after: Self.utcDate("2026-03-10T10:15:00Z")) == Self.utcDate("2026-03-10T10:30:00Z"))
        #expect(try next("0 0 * * *", after: start) == Self.utcDate("2026-03-11T00:00:00Z"))
        #expect(try next("30 9 * * mon", after: start) == Self.utcDate("2026-03-16T09:30:00Z"))  // 10 March 2026 is a Tuesday
    }

    @Test func monthEndsSkipShortMonths() throws {
        let thirtyFirsts = try fires("0 12 31 * *", after: Self.utcDate("2026-01-01T00:00:00Z"), count: 4)
        #expect(thirtyFirsts == ["2026-01-31", "2026-03-31", "2026-05-31", "2026-07-31"].map { Self.utcDate("\($0)T12:00:00Z") })
        let thirtieth = try fires("0 0 30 * *", after: Self.utcDate("2026-01-30T00:00:00Z"), count: 2)
        #expect(thirtieth == [Self.utcDate("2026-03-30T00:00:00Z"), Self.utcDate("2026-04-30T00:00:00Z")])
        #expect(try next("0 0 1 * *", after: Self.utcDate("2026-12-31T23:59:00Z")) == Self.utcDate("2027-01-01T00:00:00Z"))
    }

    @Test func leapDayFiresOnlyInLeapYears() throws {
        #expect(try next("0 0 29 2 *", after: Self.utcDate("2026-01-01T00:00:00Z")) == Self.utcDate("2028-02-29T00:00:00Z"))
        #expect(try next("0 0 29 2 *", after: Self.utcDate("2096-03-01T00:00:00Z")) == Self.utcDate("2104-02-29T00:00:00Z"))
    }

    @Test func restrictedDayOfMonthAndWeekMatchEither() throws {
        // The 13th, or any Friday (Vixie cron). April 2026: Fridays 3, 10, 17; the 13th is a Monday.
        let either = try fires("0 0 13 * fri", after: Self.utcDate("2026-04-01T00:00:00Z"), count: 4)
        #expect(either == ["2026-04-03", "2026-04-10", "2026-04-13", "2026-04-17"].map { Self.utcDate("\($0)T00:00:00Z") })
        // A day field starting with `*` makes both apply: Fridays on odd days.
        let stepped = try fires("0 0 */2 * fri", after: Self.utcDate("2026-02-01T00:00:00Z"), count: 2)
        #expect(stepped == [Self.utcDate("2026-02-13T00:00:00Z"), Self.utcDate("2026-02-27T00:00:00Z")])
    }

    @Test func readsTheFieldsInTheConfiguredTimeZone() throws {
        // 09:00 in New York is 14:00 UTC in winter and 13:00 UTC in summer.
        #expect(try next("0 9 * * *", after: Self.utcDate("2026-01-15T00:00:00Z"), Self.newYork) == Self.utcDate("2026-01-15T14:00:00Z"))
        #expect(try next("0 9 * * *", after: Self.utcDate("2026-07-15T00:00:00Z"), Self.newYork) == Self.utcDate("2026-07-15T13:00:00Z"))
    }

    @Test func springForwardGapShiftsForwardOnce() throws {
        // 2026-03-08: New York skips 02:00-02:59 (EST → EDT at 07:00 UTC).
        let before = Self.utcDate("2026-03-08T05:00:00Z")  // 00:00 EST
        #expect(try next("30 2 * * *", after: before, Self.newYork) == Self.utcDate("2026-03-08T07:30:00Z"))  // 03:30 EDT
        let daily = try fires("30 2 * * *", after: before, count: 2, Self.newYork)
        #expect(daily[1] == Self.utcDate("2026-03-09T06:30:00Z"))  // 02:30 EDT next day
        // Every 30 minutes keeps its rhythm across the gap: 01:30 EST, then 03:00 EDT.
        let halfHourly = try fires("*/30 * * * *", after: Self.utcDate("2026-03-08T06:15:00Z"), count: 3, Self.newYork)
        #expect(halfHourly == ["06:30", "07:00", "07:30"].map { Self.utcDate("2026-03-08T\($0):00Z") })
    }

    @Test func fallBackRepeatFiresFixedTimesOnceAndWildcardHoursTwice() throws {
        // 2026-11-01: New York repeats 01:00-01:59 (EDT until 06:00 UTC, then EST).
        let before = Self.utcDate("2026-11-01T04:00:00Z")  // 00:00 EDT
        let fixed = try fires("30 1 * * *", after: before, count: 2, Self.newYork)
        #expect(fixed == [Self.utcDate("2026-11-01T05:30:00Z"), Self.utcDate("2026-11-02T06:30:00Z")])
        let hourly = try fires("0 * * * *", after: before, count: 4, Self.newYork)
        #expect(hourly == ["05:00", "06:00", "07:00", "08:00"].map { Self.utcDate("2026-11-01T\($0):00Z") })
    }

    @Test func berlinDaylightSavingToo() throws {
        // 2026-03-29: Berlin skips 02:00-02:59 (01:00 UTC); 2026-10-25 repeats 02:00-02:59.
        #expect(try next("15 2 * * *", after: Self.utcDate("2026-03-28T23:00:00Z"), Self.berlin) == Self.utcDate("2026-03-29T01:15:00Z"))
        #expect(try next("15 2 * * *", after: Self.utcDate("2026-10-24T23:00:00Z"), Self.berlin) == Self.utcDate("2026-10-25T00:15:00Z"))
        #expect(try next("15 2 * * *", after: Self.utcDate("2026-10-25T00:15:00Z"), Self.berlin) == Self.utcDate("2026-10-26T01:15:00Z"))
    }

    @Test func intervalRulesCountFromTheGivenTime() throws {
        let now = Self.utcDate("2026-03-10T10:07:30Z")
        #expect(ScheduleRule.every(seconds: 90).next(after: now, in: Self.utc) == now.addingTimeInterval(90))
        #expect(try ScheduleRule.cron("0 * * * *").next(after: now, in: Self.utc) == Self.utcDate("2026-03-10T11:00:00Z"))
    }
}

