/// Who may take a course: its prerequisites, the courses to take with it (corequisites), and
/// who it is restricted to. Every field is optional; none means no rule.
public struct CourseRequirements: Sendable, Codable, Equatable {
    public var prerequisites: Requisite?
    public var corequisites: [String]?
    public var restrictions: Restrictions?

    /// Each list given allows only students with one of its values; an empty or absent list
    /// allows all.
    public struct Restrictions: Sendable, Codable, Equatable {
        public var levels: [StudentLevel]?
        public var standings: [ClassStanding]?
        public var majors: [String]?

        public init(levels: [StudentLevel]? = nil, standings: [ClassStanding]? = nil, majors: [String]? = nil) {
            self.levels = levels
            self.standings = standings
            self.majors = majors
        }
    }

    public init(prerequisites: Requisite? = nil, corequisites: [String]? = nil, restrictions: Restrictions? = nil) {
        self.prerequisites = prerequisites
        self.corequisites = corequisites
        self.restrictions = restrictions
    }

    public static let none = CourseRequirements()
}

/// A rule an instructor's or department's permission lets a student past, for one class.
/// Holds are not among them: a hold is lifted, not overridden.
public enum OverridableRule: String, Sendable, Codable, CaseIterable {
    case prerequisite, corequisite, restriction, maxUnits = "max-units", window, closed, timeConflict = "time-conflict"
}
