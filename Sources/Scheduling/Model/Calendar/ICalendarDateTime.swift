public import Catalog
public import Foundation

/// How RFC 5545 writes dates, times and UTC offsets. Integer arithmetic only: nothing here
/// reads the machine's time zone or clock.
public enum ICalendarDateTime {
    /// `20240122` (a DATE value).
    public static func date(_ date: CivilDate) -> String { date.basic }

    /// `20240122T100000`: a local (floating or TZID) DATE-TIME, `seconds` after midnight of
    /// `date`; 86,400 and more roll over into the following days.
    public static func local(_ date: CivilDate, secondsAfterMidnight seconds: Int) -> String {
        wallClock(date.daysSinceEpoch * 86_400 + seconds)
    }

    /// `20240122T180000Z`: the UTC DATE-TIME of `date`, whole seconds (fractions dropped).
    public static func utc(_ date: Date) -> String {
        utc(secondsSinceEpoch: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    /// `20240122T180000Z` for an instant in whole seconds since 1970-01-01T00:00:00Z.
    public static func utc(secondsSinceEpoch seconds: Int) -> String { wallClock(seconds) + "Z" }

    /// A UTC offset: `-0800`, `+0530`, `+0000`; `+013045` when it has seconds.
    public static func offset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        let hours = magnitude / 3600, minutes = magnitude % 3600 / 60, rest = magnitude % 60
        return sign + pad(hours) + pad(minutes) + (rest == 0 ? "" : pad(rest))
    }

    /// `YYYYMMDDTHHMMSS` for seconds counted on a clock that reads 00:00:00 at 1970-01-01.
    static func wallClock(_ seconds: Int) -> String {
        let days = floorDivide(seconds, 86_400)
        let time = seconds - days * 86_400
        let date = CivilDate(daysSinceEpoch: days)
        return date.basic + "T" + pad(time / 3600) + pad(time % 3600 / 60) + pad(time % 60)
    }

    static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
