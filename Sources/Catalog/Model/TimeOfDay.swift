import Foundation
import GatewayCore

/// A time of day in minutes after midnight (0...1440, where 1440 is the end of the day).
///
/// Parses the spellings clients and catalog sources use: `1730`, `0930`, `930` and `730`
/// (read as 09:30 and 07:30), `17:30`, `9`, and umd.io's `10:00am` / `1:00pm`.
public struct TimeOfDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let minutes: Int

    public init?(minutes: Int) {
        guard (0...1440).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    public init?(hour: Int, minute: Int) {
        guard (0...24).contains(hour), (0...59).contains(minute), hour * 60 + minute <= 1440 else { return nil }
        self.minutes = hour * 60 + minute
    }

    /// Parses a time; nil when it is not one.
    public init?(parsing raw: String) {
        var text = raw.trimmingSpaces().lowercased()
        var meridiem: String?
        for suffix in ["am", "pm", "a", "p"] where text.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            text = String(text.dropLast(suffix.count)).trimmingSpaces()
            break
        }
        var hour: Int
        var minute: Int
        if let colon = text.firstIndex(of: ":") {
            let h = text[..<colon], m = text[text.index(after: colon)...]
            guard (1...2).contains(h.count), m.count == 2, let hv = Int(h), let mv = Int(m) else { return nil }
            hour = hv
            minute = mv
        } else {
            guard !text.isEmpty, text.count <= 4, text.allSatisfy(\.isASCIIDigit), let value = Int(text) else { return nil }
            if text.count <= 2 {
                hour = value
                minute = 0
            } else {
                hour = value / 100
                minute = value % 100
            }
        }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            if meridiem == "a" { hour = hour == 12 ? 0 : hour } else { hour = hour == 12 ? 12 : hour + 12 }
        }
        self.init(hour: hour, minute: minute)
    }

    public var hour: Int { minutes / 60 }
    public var minute: Int { minutes % 60 }

    /// SDSU's spelling: `1900`, `0930`.
    public var sdsu: String { Self.pad(hour) + Self.pad(minute) }
    /// The v1 API's spelling: `19:00`.
    public var iso: String { Self.pad(hour) + ":" + Self.pad(minute) }
    public var description: String { iso }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minutes < rhs.minutes }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension Character {
    public var isASCIIDigit: Bool { isASCII && isNumber }
}
