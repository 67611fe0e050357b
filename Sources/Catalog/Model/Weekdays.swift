/// The days of the week a meeting happens on, as a small bit set.
///
/// Parses every spelling the catalog sources use: SDSU's `MWF`, `TTH`, `MTWTHF`, `S`, `SU`;
/// umd.io's `MTuWThF`, `TuTh`, `FSaSu`; and `R` or `U` for Thursday and Sunday. An empty
/// string or `TBA` is the empty set (the meeting has no scheduled days).
public struct Weekdays: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    public static let monday = Weekdays(rawValue: 1 << 0)
    public static let tuesday = Weekdays(rawValue: 1 << 1)
    public static let wednesday = Weekdays(rawValue: 1 << 2)
    public static let thursday = Weekdays(rawValue: 1 << 3)
    public static let friday = Weekdays(rawValue: 1 << 4)
    public static let saturday = Weekdays(rawValue: 1 << 5)
    public static let sunday = Weekdays(rawValue: 1 << 6)

    /// Monday to Sunday, in calendar order.
    public static let ordered: [Weekdays] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    /// SDSU's abbreviations, in the order of ``ordered``.
    static let sdsuNames = ["M", "T", "W", "TH", "F", "S", "SU"]
    /// Three-letter names used by the v1 API, in the order of ``ordered``.
    public static let shortNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Tokens tried at each position, longest first, so `TTH` reads as Tuesday, Thursday.
    private static let tokens: [(String, Weekdays)] = [
        ("MON", .monday), ("TUE", .tuesday), ("WED", .wednesday), ("THU", .thursday), ("FRI", .friday),
        ("SAT", .saturday), ("SUN", .sunday),
        ("TH", .thursday), ("TU", .tuesday), ("SU", .sunday), ("SA", .saturday),
        ("M", .monday), ("T", .tuesday), ("W", .wednesday), ("R", .thursday), ("F", .friday),
        ("S", .saturday), ("U", .sunday),
    ]

    /// Parses a day string; nil when it contains something that is not a day.
    /// Spaces, commas and slashes between days are ignored.
    public init?(parsing text: String) {
        var rest = Substring(text.uppercased())
        rest = rest.drop(while: { $0 == " " })
        if rest.isEmpty || rest == "TBA" || rest == "ARR" {
            self = []
            return
        }
        var days: Weekdays = []
        while !rest.isEmpty {
            if let first = rest.first, first == " " || first == "," || first == "/" || first == "-" {
                rest = rest.dropFirst()
                continue
            }
            guard let (token, day) = Self.tokens.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            days.insert(day)
            rest = rest.dropFirst(token.count)
        }
        self = days
    }

    /// SDSU's spelling: `MWF`, `TTH`, `MTWTHF`; empty for no days.
    public var sdsu: String {
        zip(Self.ordered, Self.sdsuNames).filter { contains($0.0) }.map(\.1).joined()
    }

    /// The v1 API's spelling: `["tue", "thu"]`.
    public var names: [String] {
        zip(Self.ordered, Self.shortNames).filter { contains($0.0) }.map(\.1)
    }
}
