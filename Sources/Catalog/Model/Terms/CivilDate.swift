import GatewayCore

/// A calendar date without a time or a zone (`2024-03-11`): what a term's first day, a holiday
/// or a transfer day is. Day arithmetic is exact integer arithmetic on the proleptic Gregorian
/// calendar, so it never depends on the machine's time zone.
public struct CivilDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A valid date, or nil (`2023-02-29` is not one).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` exactly; nil for anything else.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date `days` after (or before, when negative) the given day count since 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        (year, month, day) = CivilDays.civil(fromDays: days)
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSinceEpoch: Int { CivilDays.days(year: year, month: month, day: day) }

    /// The date `count` days later.
    public func adding(days count: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + count) }

    /// The day of the week (1970-01-01 was a Thursday).
    public var weekday: Weekdays {
        let index = ((daysSinceEpoch % 7) + 7 + 3) % 7 // 0 = Monday
        return Weekdays.ordered[index]
    }

    /// `2024-03-11`.
    public var description: String { pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) }
    /// `20240311`, as iCalendar writes a DATE.
    public var basic: String { pad(year, 4) + pad(month, 2) + pad(day, 2) }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = CivilDate(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a date (YYYY-MM-DD)"))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
