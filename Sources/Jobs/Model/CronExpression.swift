import Foundation
import GatewayCore

/// A five-field cron expression: `minute hour day-of-month month day-of-week`.
///
/// Each field is `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n`, or a comma list
/// of those. Months accept `jan`...`dec` and days of week `sun`...`sat` (0 and 7 are Sunday).
/// `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight` and `@hourly` are
/// accepted. As in Vixie cron, when both day fields are restricted (neither starts with `*`),
/// a day matches when either does; otherwise it must match both.
public struct CronExpression: Sendable, Equatable, CustomStringConvertible {
    /// The text as written.
    public let source: String
    /// Sorted values of each field.
    public let minutes: [Int]
    public let hours: [Int]
    public let daysOfMonth: [Int]
    public let months: [Int]
    /// 0 is Sunday.
    public let daysOfWeek: [Int]
    let dayOfMonthRestricted: Bool
    let dayOfWeekRestricted: Bool
    let dayOfMonthBits: UInt32
    let monthBits: UInt16
    let dayOfWeekBits: UInt8

    public var description: String { source }

    /// Why an expression was refused.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    static let macros: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
        "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]
    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    public init(_ text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let expanded = Self.macros[trimmed] ?? trimmed
        let fields = expanded.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw ParseError(message: "a cron expression has 5 fields (minute hour day month weekday), not \(fields.count)")
        }
        source = text.trimmingCharacters(in: .whitespaces)
        minutes = try Self.parseField(fields[0], name: "minute", range: 0...59, names: [])
        hours = try Self.parseField(fields[1], name: "hour", range: 0...23, names: [])
        daysOfMonth = try Self.parseField(fields[2], name: "day of month", range: 1...31, names: [])
        months = try Self.parseField(fields[3], name: "month", range: 1...12, names: Self.monthNames, firstNameValue: 1)
        let weekdays = try Self.parseField(fields[4], name: "day of week", range: 0...7, names: Self.dayNames)
        daysOfWeek = Array(Set(weekdays.map { $0 % 7 })).sorted()
        dayOfMonthRestricted = !fields[2].hasPrefix("*")
        dayOfWeekRestricted = !fields[4].hasPrefix("*")
        dayOfMonthBits = daysOfMonth.reduce(0) { $0 | (1 << UInt32($1)) }
        monthBits = months.reduce(0) { $0 | (1 << UInt16($1)) }
        dayOfWeekBits = daysOfWeek.reduce(0) { $0 | (1 << UInt8($1)) }
        if dayOfMonthRestricted, !dayOfWeekRestricted {
            let longest = months.map { CivilDate.maximumDays(inMonth: $0) }.max() ?? 31
            guard let first = daysOfMonth.first, first <= longest else {
                throw ParseError(message: "'\(source)' never fires: no chosen month has day \(daysOfMonth.first ?? 0)")
            }
        }
    }

    /// Whether every hour matches (then the repeated hour of a daylight-saving fall-back fires
    /// twice, as in Vixie cron; a fixed hour fires once).
    var everyHour: Bool { hours.count == 24 }

    func matchesDay(month: Int, day: Int, weekday: Int) -> Bool {
        guard monthBits & (1 << UInt16(month)) != 0 else { return false }
        let dom = dayOfMonthBits & (1 << UInt32(day)) != 0
        let dow = dayOfWeekBits & (1 << UInt8(weekday)) != 0
        // Vixie cron: either day field starting with `*` makes the two combine with AND.
        return dayOfMonthRestricted && dayOfWeekRestricted ? (dom || dow) : (dom && dow)
    }

    static func parseField(
        _ field: String, name: String, range: ClosedRange<Int>, names: [String], firstNameValue: Int = 0
    ) throws(ParseError) -> [Int] {
        var values = Set<Int>()
        for part in field.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !part.isEmpty else { throw ParseError(message: "empty list item in the \(name) field '\(field)'") }
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard pieces.count <= 2 else { throw ParseError(message: "bad step in the \(name) field '\(part)'") }
            var step = 1
            if pieces.count == 2 {
                guard let parsed = Int(pieces[1]), parsed >= 1, parsed <= range.upperBound + 1 else {
                    throw ParseError(message: "the step in the \(name) field '\(part)' must be a positive number")
                }
                step = parsed
            }
            let base = pieces[0]
            let lower: Int
            let upper: Int
            if base == "*" {
                (lower, upper) = (range.lowerBound, range.upperBound)
            } else if let dash = base.firstIndex(of: "-") {
                lower = try value(String(base[..<dash]), name: name, range: range, names: names, firstNameValue: firstNameValue)
                upper = try value(String(base[base.index(after: dash)...]), name: name, range: range, names: names, firstNameValue: firstNameValue)
                guard lower <= upper else { throw ParseError(message: "the range '\(base)' in the \(name) field runs backwards") }
            } else {
                lower = try value(base, name: name, range: range, names: names, firstNameValue: firstNameValue)
                upper = pieces.count == 2 ? range.upperBound : lower
            }
            for v in stride(from: lower, through: upper, by: step) { values.insert(v) }
        }
        return values.sorted()
    }

    static func value(
        _ text: String, name: String, range: ClosedRange<Int>, names: [String], firstNameValue: Int
    ) throws(ParseError) -> Int {
        if let index = names.firstIndex(of: text) { return index + firstNameValue }
        guard let number = Int(text), range.contains(number) else {
            throw ParseError(message: "'\(text)' is not a valid \(name) (\(range.lowerBound)-\(range.upperBound))")
        }
        return number
    }
}

/// Calendar arithmetic for cron on day numbers counted from 1970-01-01 (``CivilDays``).
enum CivilDate {
    /// Year, month (1-12) and day (1-31) of a day number.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let (year, month, day) = CivilDays.civil(fromDays: Int(days))
        return (Int64(year), month, day)
    }

    /// 0 is Sunday; 1970-01-01 was a Thursday.
    static func weekday(fromDays days: Int64) -> Int {
        Int(((days % 7) + 11) % 7)
    }

    static func maximumDays(inMonth month: Int) -> Int {
        switch month {
        case 2: 29
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
