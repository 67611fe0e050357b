public import Foundation
import GatewayCore

/// An academic term as a calendar knows it: when instruction runs, in which time zone, and
/// which days are off (holidays) or follow another weekday's timetable (transfer days).
/// Nothing about a semester is hard-coded anywhere else: registration rules and calendar
/// export both read terms.
public struct Term: Sendable, Equatable, Codable {
    /// The catalog's term string (`2024-spring`, `202005`).
    public var id: String
    public var name: String
    /// The first and last day of instruction, inclusive.
    public var firstDay: CivilDate
    public var lastDay: CivilDate
    /// An IANA time zone (`America/Los_Angeles`).
    public var timeZone: String
    public var holidays: [Holiday]
    public var transferDays: [TransferDay]
    /// Who keeps the term's seat counts: the gateway (its own registrations) or the campus
    /// registrar, whose feed the gateway mirrors (``SeatsSource``).
    public var seatsFrom: SeatsSource
    /// Where the registrar publishes the term's seat status, for a registrar that does not push
    /// it (`registrarFeedUrl`); polled every ``registrarPollSeconds``.
    public var registrarFeedURL: URL?
    /// How often the feed is polled, in seconds (default ``defaultRegistrarPollSeconds``).
    public var registrarPollSeconds: Int?
    /// The most units a student may register for in the term (nil: no limit); a student's
    /// academic record may set their own.
    public var maxUnits: Double?
    /// Whether registering for a second section of a course the student is in is refused
    /// (Banner's DUPL CRSE); off by default, as the SDSU protocol has always allowed it.
    public var refuseDuplicateCourses: Bool

    public init(
        id: String, name: String, firstDay: CivilDate, lastDay: CivilDate, timeZone: String,
        holidays: [Holiday] = [], transferDays: [TransferDay] = [], seatsFrom: SeatsSource = .gateway,
        registrarFeedURL: URL? = nil, registrarPollSeconds: Int? = nil, maxUnits: Double? = nil, refuseDuplicateCourses: Bool = false
    ) {
        self.refuseDuplicateCourses = refuseDuplicateCourses
        self.id = id
        self.name = name
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.timeZone = timeZone
        self.holidays = holidays
        self.transferDays = transferDays
        self.seatsFrom = seatsFrom
        self.registrarFeedURL = registrarFeedURL
        self.registrarPollSeconds = registrarPollSeconds
        self.maxUnits = maxUnits
    }

    /// Who keeps a term's seats.
    public enum SeatsSource: String, Sendable, Equatable, Codable, CaseIterable {
        /// The gateway: students register through it (the default).
        case gateway
        /// The campus registrar: students register there, and the gateway mirrors its seat
        /// counts (the registrar's webhook or feed); registering through the gateway is refused.
        case registrar
    }

    enum CodingKeys: String, CodingKey {
        case id, name, firstDay, lastDay, timeZone, holidays, transferDays, seatsFrom
        case registrarFeedURL = "registrarFeedUrl"
        case registrarPollSeconds, maxUnits, refuseDuplicateCourses
    }

    /// Decodes a term; `holidays` and `transferDays` may be left out (none), `seatsFrom` too
    /// (`gateway`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        firstDay = try container.decode(CivilDate.self, forKey: .firstDay)
        lastDay = try container.decode(CivilDate.self, forKey: .lastDay)
        timeZone = try container.decode(String.self, forKey: .timeZone)
        holidays = try container.decodeIfPresent([Holiday].self, forKey: .holidays) ?? []
        transferDays = try container.decodeIfPresent([TransferDay].self, forKey: .transferDays) ?? []
        seatsFrom = try container.decodeIfPresent(SeatsSource.self, forKey: .seatsFrom) ?? .gateway
        registrarFeedURL = try container.decodeIfPresent(URL.self, forKey: .registrarFeedURL)
        registrarPollSeconds = try container.decodeIfPresent(Int.self, forKey: .registrarPollSeconds)
        maxUnits = try container.decodeIfPresent(Double.self, forKey: .maxUnits)
        refuseDuplicateCourses = try container.decodeIfPresent(Bool.self, forKey: .refuseDuplicateCourses) ?? false
    }

    /// Encodes the term as it was put: optional fields only when set, and
    /// `refuseDuplicateCourses` only when on.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(firstDay, forKey: .firstDay)
        try container.encode(lastDay, forKey: .lastDay)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(holidays, forKey: .holidays)
        try container.encode(transferDays, forKey: .transferDays)
        try container.encode(seatsFrom, forKey: .seatsFrom)
        try container.encodeIfPresent(registrarFeedURL, forKey: .registrarFeedURL)
        try container.encodeIfPresent(registrarPollSeconds, forKey: .registrarPollSeconds)
        try container.encodeIfPresent(maxUnits, forKey: .maxUnits)
        if refuseDuplicateCourses { try container.encode(true, forKey: .refuseDuplicateCourses) }
    }

    /// Whether students register at the registrar, the gateway mirroring its seats.
    public var seatsAtRegistrar: Bool { seatsFrom == .registrar }

    /// How often the registrar's feed is polled when the term names one.
    public var registrarPollInterval: Int { registrarPollSeconds ?? Self.defaultRegistrarPollSeconds }

    /// A day without classes, or a run of them (`from`...`to`, inclusive).
    public struct Holiday: Sendable, Equatable, Codable {
        public var from: CivilDate
        public var to: CivilDate
        public var name: String

        public init(from: CivilDate, to: CivilDate, name: String) {
            self.from = from
            self.to = to
            self.name = name
        }

        public init(date: CivilDate, name: String) { self.init(from: date, to: date, name: name) }

        /// Whether the holiday is a single day (written as `date` in JSON).
        public var isSingleDay: Bool { from == to }

        public func contains(_ date: CivilDate) -> Bool { from <= date && date <= to }

        enum CodingKeys: String, CodingKey { case date, from, to, name }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? ""
            if let date = try container.decodeIfPresent(CivilDate.self, forKey: .date) {
                from = date
                to = date
            } else {
                from = try container.decode(CivilDate.self, forKey: .from)
                to = try container.decode(CivilDate.self, forKey: .to)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if isSingleDay {
                try container.encode(from, forKey: .date)
            } else {
                try container.encode(from, forKey: .from)
                try container.encode(to, forKey: .to)
            }
            try container.encode(name, forKey: .name)
        }
    }

    /// A date that follows another weekday's timetable (a Tuesday that runs Friday classes).
    public struct TransferDay: Sendable, Equatable, Codable {
        public var date: CivilDate
        /// The weekday whose classes meet on ``date``.
        public var follows: Weekdays

        public init(date: CivilDate, follows: Weekdays) {
            self.date = date
            self.follows = follows
        }

        enum CodingKeys: String, CodingKey { case date, follows }

        /// Full English names, as the JSON writes `follows`.
        public static let weekdayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            date = try container.decode(CivilDate.self, forKey: .date)
            let name = try container.decode(String.self, forKey: .follows)
            guard let day = Self.weekday(named: name) else {
                throw DecodingError.dataCorruptedError(forKey: .follows, in: container, debugDescription: "'\(name)' is not a weekday")
            }
            follows = day
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(date, forKey: .date)
            try container.encode(Self.name(of: follows), forKey: .follows)
        }

        /// `friday`, `Fri`, `F` and every spelling ``Weekdays`` parses, for exactly one day.
        public static func weekday(named name: String) -> Weekdays? {
            let lowered = name.trimmingCharacters(in: .whitespaces).lowercased()
            if let index = weekdayNames.firstIndex(of: lowered) { return Weekdays.ordered[index] }
            guard let days = Weekdays(parsing: lowered), Weekdays.ordered.contains(days) else { return nil }
            return days
        }

        public static func name(of day: Weekdays) -> String {
            Weekdays.ordered.firstIndex(of: day).map { weekdayNames[$0] } ?? ""
        }
    }

    /// Whether `date` is a holiday of this term.
    public func isHoliday(_ date: CivilDate) -> Bool { holidays.contains { $0.contains(date) } }

    /// The weekday whose timetable runs on `date`: its own, or the one a transfer day follows.
    public func timetableDay(of date: CivilDate) -> Weekdays {
        transferDays.first { $0.date == date }?.follows ?? date.weekday
    }
}

/// Why a term was refused: the field (JSON path) and what is wrong with it.
public struct TermProblem: Error, Sendable, Equatable {
    public let field: String
    public let reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }
}

extension Term {
    /// The longest a term may run, and the most holidays and transfer days it may list.
    public static let maximumDays = 400
    public static let maximumEntries = 100
    /// Bounds and default of ``registrarPollSeconds``.
    public static let registrarPollSecondsRange = 30...86_400
    public static let defaultRegistrarPollSeconds = 300

    /// Checks the term; the first problem names its field (`lastDay`, `holidays[1].to`).
    public func validate() throws(TermProblem) {
        let idBytes = id.utf8
        guard !idBytes.isEmpty, idBytes.count <= 40,
              idBytes.allSatisfy({ $0 >= 0x21 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }) else {
            throw TermProblem(field: "id", reason: "must be 1 to 40 visible ASCII characters without '/', '?' or '#'")
        }
        let trimmedName = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmedName.isEmpty, name.count <= 100 else { throw TermProblem(field: "name", reason: "must be 1 to 100 characters") }
        guard TimeZone(identifier: timeZone) != nil, timeZone.contains("/") || timeZone == "UTC" else {
            throw TermProblem(field: "timeZone", reason: "'\(timeZone)' is not an IANA time zone")
        }
        guard firstDay <= lastDay else { throw TermProblem(field: "lastDay", reason: "is before firstDay (\(firstDay))") }
        guard lastDay.daysSinceEpoch - firstDay.daysSinceEpoch < Term.maximumDays else {
            throw TermProblem(field: "lastDay", reason: "a term may run at most \(Term.maximumDays) days")
        }
        guard holidays.count <= Term.maximumEntries else { throw TermProblem(field: "holidays", reason: "at most \(Term.maximumEntries) entries") }
        guard transferDays.count <= Term.maximumEntries else { throw TermProblem(field: "transferDays", reason: "at most \(Term.maximumEntries) entries") }
        for (index, holiday) in holidays.enumerated() {
            let path = "holidays[\(index)]"
            guard holiday.name.count <= 100 else { throw TermProblem(field: "\(path).name", reason: "at most 100 characters") }
            guard holiday.from <= holiday.to else { throw TermProblem(field: "\(path).to", reason: "is before from (\(holiday.from))") }
            guard holiday.from >= firstDay, holiday.from <= lastDay else {
                throw TermProblem(field: holiday.isSingleDay ? "\(path).date" : "\(path).from", reason: "\(holiday.from) is outside the term (\(firstDay) to \(lastDay))")
            }
            guard holiday.to <= lastDay else { throw TermProblem(field: "\(path).to", reason: "\(holiday.to) is outside the term (\(firstDay) to \(lastDay))") }
        }
        var seen = Set<CivilDate>()
        for (index, transfer) in transferDays.enumerated() {
            let path = "transferDays[\(index)]"
            guard transfer.date >= firstDay, transfer.date <= lastDay else {
                throw TermProblem(field: "\(path).date", reason: "\(transfer.date) is outside the term (\(firstDay) to \(lastDay))")
            }
            guard seen.insert(transfer.date).inserted else { throw TermProblem(field: "\(path).date", reason: "\(transfer.date) is listed twice") }
            guard !isHoliday(transfer.date) else { throw TermProblem(field: "\(path).date", reason: "\(transfer.date) is also a holiday") }
        }
        try validateRegistrarFeed()
    }

    /// Whether a registrar feed may be fetched from `url`: `https`, or plain `http` only to a
    /// loopback host (a registrar stand-in on the same machine), since a feed fetched over plain
    /// HTTP across a network can be rewritten on the way and moves every class's seats.
    public static func isAcceptableRegistrarFeed(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http":
            guard var host = url.host?.lowercased(), !host.isEmpty else { return false }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return host == "localhost" || AddressRange.loopback.contains { $0.contains(host) }
        default: return false
        }
    }

    /// The feed fields belong to a registrar term; the URL is absolute https (http only to
    /// loopback) without credentials (a secret in a URL ends up in logs), and the interval is
    /// bounded.
    func validateRegistrarFeed() throws(TermProblem) {
        if let url = registrarFeedURL {
            guard seatsFrom == .registrar else {
                throw TermProblem(field: "registrarFeedUrl", reason: "only a term with seatsFrom \"registrar\" has a registrar feed")
            }
            let text = url.absoluteString
            guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty,
                  text.utf8.count <= 2048 else {
                throw TermProblem(field: "registrarFeedUrl", reason: "must be an absolute http or https URL of at most 2048 bytes")
            }
            guard url.user == nil, url.password == nil, url.fragment == nil else {
                throw TermProblem(field: "registrarFeedUrl", reason: "must not carry credentials or a fragment")
            }
            guard Self.isAcceptableRegistrarFeed(url) else {
                throw TermProblem(
                    field: "registrarFeedUrl",
                    reason: "must be an https URL: plain http is allowed only to a loopback address (127.0.0.1, [::1], localhost)"
                )
            }
        }
        if let seconds = registrarPollSeconds {
            guard registrarFeedURL != nil else {
                throw TermProblem(field: "registrarPollSeconds", reason: "needs registrarFeedUrl")
            }
            guard Term.registrarPollSecondsRange.contains(seconds) else {
                throw TermProblem(
                    field: "registrarPollSeconds",
                    reason: "must be between \(Term.registrarPollSecondsRange.lowerBound) and \(Term.registrarPollSecondsRange.upperBound)"
                )
            }
        }
        if let maxUnits, !(maxUnits > 0 && maxUnits <= 100) {
            throw TermProblem(field: "maxUnits", reason: "must be more than 0 and at most 100")
        }
    }
}
