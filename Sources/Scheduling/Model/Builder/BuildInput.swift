public import Catalog

/// One section the builder may place, with what ranking needs to know about it.
public struct SectionOption: Sendable, Equatable {
    public var classID: Int64
    /// The section code (`0101`).
    public var section: String
    /// The component it fills (`Lecture`, `Lab`); empty when the section is whole.
    public var component: String
    /// Section codes of the other components it goes with; empty when it goes with any.
    public var links: [String]
    public var instructors: [String]
    public var meetings: [Meeting]
    /// Seats anyone may take now.
    public var openSeats: Int

    public init(
        classID: Int64, section: String, component: String = "", links: [String] = [], instructors: [String],
        meetings: [Meeting], openSeats: Int
    ) {
        self.classID = classID
        self.section = section
        self.component = component
        self.links = links
        self.instructors = instructors
        self.meetings = meetings
        self.openSeats = openSeats
    }
}

/// A course the student asked for, with every section the term offers.
public struct CourseOptions: Sendable, Equatable {
    /// The course as the catalog shows it (`CMSC 131`).
    public var label: String
    /// Optional courses fill the schedule up to ``BuildConstraints/maxCourses``.
    public var optional: Bool
    /// Credit units, the course's weight in ranking and in the unit limits.
    public var units: Double
    /// The course's average GPA (0–4); nil when unknown.
    public var averageGPA: Double?
    public var sections: [SectionOption]

    public init(label: String, optional: Bool = false, units: Double, averageGPA: Double? = nil, sections: [SectionOption]) {
        self.label = label
        self.optional = optional
        self.units = units
        self.averageGPA = averageGPA
        self.sections = sections
    }
}

/// A time the student keeps free: some days from `start` to `end`, or whole days.
public struct BlockedTime: Sendable, Equatable {
    public var days: Weekdays
    /// Minutes after midnight; nil for the whole day.
    public var start: TimeOfDay?
    public var end: TimeOfDay?

    public init(days: Weekdays, start: TimeOfDay? = nil, end: TimeOfDay? = nil) {
        self.days = days
        self.start = start
        self.end = end
    }

    var mask: WeekMask { WeekMask(days: days, from: start?.minutes ?? 0, to: end?.minutes ?? 1440) }

    /// `MWF 12:00–13:00`, or `F (all day)`.
    public var label: String {
        guard let start, let end else { return "\(days.sdsu) (all day)" }
        return "\(days.sdsu) \(start.iso)–\(end.iso)"
    }
}

/// Everything that limits which combinations count, besides time conflicts.
public struct BuildConstraints: Sendable, Equatable {
    /// Class ids that must be in every schedule (their course's other sections are dropped).
    public var pinned: [Int64] = []
    /// Class ids never to place.
    public var excluded: [Int64] = []
    public var blocked: [BlockedTime] = []
    /// Place only sections with an open seat.
    public var openSeatsOnly = false
    public var minUnits: Double?
    public var maxUnits: Double?
    /// At most this many courses per schedule (required ones always count); nil for all.
    public var maxCourses: Int?

    public init(
        pinned: [Int64] = [], excluded: [Int64] = [], blocked: [BlockedTime] = [], openSeatsOnly: Bool = false,
        minUnits: Double? = nil, maxUnits: Double? = nil, maxCourses: Int? = nil
    ) {
        self.pinned = pinned
        self.excluded = excluded
        self.blocked = blocked
        self.openSeatsOnly = openSeatsOnly
        self.minUnits = minUnits
        self.maxUnits = maxUnits
        self.maxCourses = maxCourses
    }
}

/// How much each ranking component counts; any non-negative numbers, only their ratios matter.
public struct RankingWeights: Sendable, Equatable, Codable {
    /// The course's average GPA (higher is better), weighted by credits.
    public var gpa: Double = 1
    /// The instructors' rating (higher is better), weighted by credits.
    public var rating: Double = 1
    /// Fewer idle minutes between classes.
    public var gaps: Double = 0.5
    /// Fewer days on campus.
    public var days: Double = 0.5
    /// A later first class of the week.
    public var laterStart: Double = 0.25
    /// An earlier last class of the week.
    public var earlierEnd: Double = 0.25

    public init() {}

    public init(gpa: Double, rating: Double, gaps: Double, days: Double, laterStart: Double, earlierEnd: Double) {
        self.gpa = gpa
        self.rating = rating
        self.gaps = gaps
        self.days = days
        self.laterStart = laterStart
        self.earlierEnd = earlierEnd
    }

    var total: Double { gpa + rating + gaps + days + laterStart + earlierEnd }
}
